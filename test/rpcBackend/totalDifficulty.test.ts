/** Total difficulty: the header field reader agrees with the decoder; values stay right across a reorg. */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../core/chain/block/index.ts';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { ethereumHeaderCodec, headerHash } from '../../core/chain/header/index.ts';
import { buildCliqueExtra } from '../../core/consensus/clique/index.ts';
import { ChainService } from '../../core/chainService/chainService.ts';
import { rawBlock } from '../../core/store/read/rawBlock.ts';
import { devAccounts, devGenesisJson } from '../../core/node/dev/devChain.ts';
import { headerDifficulty, TotalDifficulty } from '../../core/rpcBackend/totalDifficulty.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';
import { decodeRlp } from '../../core/primitives/rlp.ts';
import { openReadOnly } from '../../core/store/index.ts';
import { conformancePath } from '../support/conformance.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';

const genesis = parseGenesis(readFileSync(conformancePath('execution-apis-london', 'genesis.json'), 'utf8'));

describe('headerDifficulty', () => {
  it('default: reads the difficulty of London headers of every size class (0, one byte, short, long values)', () => {
    for (const difficulty of [0n, 1n, 0x7fn, 0x80n, 0x20000n, 2n ** 64n + 5n, 2n ** 255n]) {
      const rlp = ethereumHeaderCodec.encode({ ...genesis.genesisHeader, difficulty, rlp: undefined });
      expect(headerDifficulty(rlp)).toBe(difficulty);
      expect(ethereumHeaderCodec.decode(decodeRlp(rlp), rlp).difficulty).toBe(difficulty);
    }
  });

  it('error: a non-list is refused', () => {
    expect(() => headerDifficulty(new Uint8Array([0x82, 1, 2]))).toThrow(RangeError);
  });
});

describe('TotalDifficulty over a reorg (three-signer Clique chain)', () => {
  const newDatadir = datadirFactory();
  const accounts = devAccounts(3).sort((a, b) => Buffer.compare(hexToBytes(a.address), hexToBytes(b.address)));
  const json = devGenesisJson(accounts);
  json.extraData = bytesToHex(
    buildCliqueExtra(
      new Uint8Array(32),
      accounts.map((a) => hexToBytes(a.address)),
    ),
  );
  const clique = parseGenesis(json);
  const open: ChainService[] = [];
  afterAll(() => {
    for (const s of open) s.close();
  });

  /** Signer `i` (in address order; block n is in turn for signer n % 3) seals the next block on `blocks`. */
  async function seal(i: number, blocks: Uint8Array[]): Promise<Uint8Array> {
    const s = ChainService.open({ datadir: newDatadir(), genesis: clique, batch: 0, signerKey: hexToBytes(accounts[i].privateKey) });
    open.push(s);
    if (blocks.length) await s.importBlocks(blocks);
    const { head } = await s.produce({ txs: [], timestamp: s.head().header.timestamp + 2n });
    return rawBlock(s.store, head.hash) as Uint8Array;
  }

  const sumOf = (blocks: Uint8Array[]): bigint =>
    blocks.reduce((td, b) => td + decodeBlock(b).header.difficulty, clique.genesisHeader.difficulty);

  it('behavior: after a reorg the new branch counts its own difficulties; the old block keeps its TD by hash', async () => {
    const b1 = await seal(0, []); // out of turn: difficulty 1
    const a2 = await seal(2, [b1]); // in turn: 2
    const b2 = await seal(1, [b1]); // out of turn: 1
    const b3 = await seal(0, [b1, b2]); // in turn: 2
    expect(decodeBlock(a2).header.difficulty).not.toBe(decodeBlock(b2).header.difficulty);
    const datadir = newDatadir();
    const node = ChainService.open({ datadir, genesis: clique, batch: 0 });
    open.push(node);
    const reader = openReadOnly(datadir);
    try {
      const td = new TotalDifficulty(reader);
      await node.importBlocks([b1, a2]);
      const a2Hash = headerHash(decodeBlock(a2).header);
      expect(td.of(a2Hash)).toBe(sumOf([b1, a2]));
      node.unwindTo(1n);
      await node.importBlocks([b2, b3]);
      expect(td.of(headerHash(decodeBlock(b3).header))).toBe(sumOf([b1, b2, b3]));
      expect(td.of(headerHash(decodeBlock(b2).header))).toBe(sumOf([b1, b2]));
      expect(td.of(a2Hash)).toBe(sumOf([b1, a2]));
    } finally {
      reader.close();
    }
  });
});
