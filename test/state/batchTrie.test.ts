import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../../core/chain/block/index.ts';
import { parseGenesis } from '../../core/chain/genesis/index.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { hexToBytes } from '../../core/primitives/hex.ts';
import { splitRlpStream } from '../../core/primitives/rlp.ts';
import { decodeAccount } from '../../core/state/account.ts';
import { HistoricalState, stateRootAt } from '../../core/state/store/history.ts';
import { STATE_MIGRATIONS } from '../../core/state/store/migrations.ts';
import { getProof } from '../../core/state/store/proof.ts';
import { ChainStore } from '../../core/store/index.ts';
import { verifyProof } from '../../core/trie/index.ts';
import { conformancePath } from '../support/conformance.ts';
import { connectionOf } from '../../core/store/connection.ts';

const DIR = conformancePath('execution-apis-london');
const genesis = parseGenesis(readFileSync(join(DIR, 'genesis.json'), 'utf8'));
const blocks = splitRlpStream(readFileSync(join(DIR, 'chain.rlp')));
const SENDER = hexToBytes('0x658bdf435d810c91414ec09147daa6db62406379');

function open(datadir: string): { store: ChainStore; importer: BlockImporter } {
  const store = ChainStore.open({ datadir, batch: 128 }, { migrations: STATE_MIGRATIONS });
  return {
    store,
    importer: BlockImporter.open(store, { header: genesis.genesisHeader, alloc: genesis.alloc }, { config: genesis.config }),
  };
}

function rootKept(store: ChainStore, n: number): boolean {
  const root = stateRootAt(store, n) as Uint8Array;
  return connectionOf(store).prepare('SELECT 1 FROM trie_nodes WHERE hash = ?').get(root) !== undefined;
}

describe('trie nodes written once per batch (decision 0025)', () => {
  it('behavior: blocks inside a batch keep no nodes of their own, yet prove, unwind and re-import; a rejected block inside the batch leaves nothing', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-batch-trie-'));
    let { store, importer } = open(datadir);
    await importer.importRlp(blocks[0] as Uint8Array);
    await importer.importRlp(blocks[1] as Uint8Array);
    // Block 3 with a wrong state root: refused inside the open batch; its staged rows and nodes must not survive.
    const bad = decodeBlock(blocks[2] as Uint8Array);
    bad.header = { ...bad.header, stateRoot: keccak256(Uint8Array.of(1)) };
    await expect(importer.importBlock(bad)).rejects.toThrow(/stateRoot/);
    await importer.importRlp(blocks[2] as Uint8Array);
    store.steady();
    expect([1, 2, 3].map((n) => rootKept(store, n))).toEqual([false, false, true]);

    for (const n of [1, 2, 3]) {
      const p = getProof(store, n, SENDER, []);
      const leaf = verifyProof(stateRootAt(store, n) as Uint8Array, keccak256(SENDER), p.accountProof);
      expect(leaf && decodeAccount(leaf).nonce).toBe(new HistoricalState(store, n).getAccount(SENDER)?.nonce);
      expect(p.nonce).toBe(BigInt(n));
    }

    expect(importer.unwindTo(1)).toBe(2);
    expect(rootKept(store, 1)).toBe(true);
    for (const rlp of blocks.slice(1)) await importer.importRlp(rlp);
    store.close();

    ({ store, importer } = open(datadir));
    expect(importer.headInfo.header.number).toBe(3n);
    expect(importer.state.getAccount(SENDER)?.nonce).toBe(3n);
    store.close();
  });

  it('behavior: the idle release of read caches and decoded trie (between blocks, inside an open batch or after it) changes no root', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'xone-batch-release-'));
    const { store, importer } = open(datadir);
    const before = importer.state.getAccount(SENDER);
    importer.releaseCaches();
    expect(importer.state.getAccount(SENDER)?.balance).toBe(before?.balance);
    for (const [i, rlp] of blocks.entries()) {
      // Each import checks the block's state root: a node or row lost by the release would fail it.
      await importer.importRlp(rlp);
      importer.releaseCaches();
      if (i === 1) store.steady();
    }
    store.steady();
    importer.releaseCaches();
    expect(importer.state.getAccount(SENDER)?.nonce).toBe(BigInt(blocks.length));
    const n = blocks.length;
    const p = getProof(store, n, SENDER, []);
    expect(verifyProof(stateRootAt(store, n) as Uint8Array, keccak256(SENDER), p.accountProof)).toBeDefined();
    store.close();
  });
});
