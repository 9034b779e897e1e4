import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBlock, ommersHash, type Block } from '../../core/chain/block/index.ts';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import type { Header } from '../../core/chain/header/index.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { STATE_MIGRATIONS } from '../../core/state/store/migrations.ts';
import { ChainStore } from '../../core/store/index.ts';
import { conformancePath } from '../support/conformance.ts';

const DIR = conformancePath('execution-apis-london');
const genesis = parseGenesis(readFileSync(join(DIR, 'genesis.json'), 'utf8'));
const chain = splitRlpStream(readFileSync(join(DIR, 'chain.rlp'))).map((b) => decodeBlock(b));
const block4 = decodeBlock(readFileSync(join(DIR, 'bad.rlp')));

/** Block 4 of the ethash chain carrying `ommers` (ommers hash fixed up, everything else as built). */
function withOmmers(ommers: Header[]): Block {
  return { ...block4, ommers, header: { ...block4.header, ommersHash: ommersHash(ommers), rlp: undefined } };
}

const plain = (h: Header): Header => ({ ...h, rlp: undefined });

describe('ommer rules on the ethash London chain', () => {
  it('error: duplicate, ancestor, dangling and too many ommers are refused before execution; a valid one reaches execution', async () => {
    const store = ChainStore.open({ datadir: mkdtempSync(join(tmpdir(), 'xone-ommers-')), batch: 0 }, { migrations: STATE_MIGRATIONS });
    try {
      const importer = BlockImporter.open(store, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config });
      for (const b of chain) await importer.importBlock(b);
      const [b1, b2, b3] = chain.map((b) => plain(b.header)) as [Header, Header, Header];
      // A sibling of block 2 (same parent, different extraData): a valid ommer for block 4.
      const sibling: Header = { ...b2, extraData: Uint8Array.of(1) };
      const reason = async (ommers: Header[]): Promise<string> =>
        importer.importBlock(withOmmers(ommers)).then(
          () => 'accepted',
          (e: Error) => e.message,
        );
      expect(await reason([sibling, sibling])).toMatch(/ommers: duplicate ommer/);
      expect(await reason([b2])).toMatch(/ommers: duplicate ommer|is an ancestor/);
      // A child of block 3 is a sibling of block 4, not an ommer; a sibling of block 3 is a valid depth-2 ommer.
      expect(await reason([{ ...plain(block4.header), extraData: Uint8Array.of(2) }])).toMatch(/ommers: dangling ommer/);
      expect(await reason([{ ...b3, extraData: Uint8Array.of(2) }])).toMatch(/^invalid block: stateRoot: expected/);
      expect(await reason([sibling, { ...sibling, extraData: Uint8Array.of(3) }, { ...sibling, extraData: Uint8Array.of(4) }])).toMatch(
        /ommers: too many: 3 > 2/,
      );
      expect(await reason([{ ...sibling, gasLimit: b1.gasLimit * 2n }])).toMatch(/ommers: ommer 0x[0-9a-f]+: gasLimit/);
      // A valid ommer passes the rules; the block then fails only on the state root (its header predates the reward).
      expect(await reason([sibling])).toMatch(/^invalid block: stateRoot: expected/);
      expect(importer.headInfo.header.number).toBe(3n);
    } finally {
      store.close();
    }
  });
});
