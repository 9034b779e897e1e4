/**
 * Side chains and fork choice through the real import pipeline on real datadirs: blocks on any stored parent are
 * executed on their own branch and stored; the heavier chain becomes the head through a reorg that unwinds state
 * through the change sets and re-imports the new branch in one durable commit; bounds prune old side blocks; a
 * failing reorg leaves the old head, durably.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { totalDifficultyForkChoice } from '../../core/chain/forkChoice.ts';
import { decodeBlock } from '../../core/chain/block/index.ts';
import { decodeTransaction } from '../../core/chain/transaction/index.ts';
import { fixtureTree, LOGGER, TREE_KEYS } from '../../core/bench/reorg/fixture.ts';
import type { BlockTree, TreeBlock } from '../../core/bench/reorg/blockTree.ts';
import { BlockImporter } from '../../core/exec/import/blockImporter.ts';
import { ChainImporter } from '../../core/exec/import/chainImporter.ts';
import { bytesToHex, equalBytes } from '../../core/primitives/hex.ts';
import { addressFromPrivateKey } from '../../core/primitives/secp256k1/index.ts';
import { HistoricalState } from '../../core/state/store/history.ts';
import { ChainStore, checkStore, type StoreOptions, type StoreFaults } from '../../core/store/index.ts';
import { datadirFactory } from '../store/support/tmpDatadir.ts';

const newDatadir = datadirFactory();
const open: ChainStore[] = [];
afterEach(() => {
  while (open.length) open.pop()?.close();
});

const [alice, bob] = TREE_KEYS;
const carol = addressFromPrivateKey(TREE_KEYS[2]);

interface Chain {
  store: ChainStore;
  chain: ChainImporter;
  datadir: string;
}

function openChain(tree: BlockTree, datadir = newDatadir(), opts: Partial<StoreOptions> = {}, coin = 0.9, faults?: StoreFaults): Chain {
  const store = ChainStore.open({ datadir, batch: 0, ...opts }, faults ? { faults } : {});
  open.push(store);
  const importer = BlockImporter.open(store, { header: tree.genesis.header, alloc: tree.alloc }, { config: tree.config });
  return {
    store,
    chain: new ChainImporter(
      importer,
      totalDifficultyForkChoice(() => coin),
    ),
    datadir,
  };
}

async function insertAll(c: Chain, blocks: readonly TreeBlock[]): Promise<string[]> {
  const kinds: string[] = [];
  for (const b of blocks) kinds.push((await c.chain.insertRlp(b.rlp)).kind);
  return kinds;
}

/** An account with its byte fields as hex (Buffer and Uint8Array compare unequal). */
function acct(a: { nonce: bigint; balance: bigint; storageRoot: Uint8Array; codeHash: Uint8Array } | undefined): unknown {
  return a && { nonce: a.nonce, balance: a.balance, storageRoot: bytesToHex(a.storageRoot), codeHash: bytesToHex(a.codeHash) };
}

/** The head is `tip` and the committed state is exactly `tip`'s. */
function expectHeadState(c: Chain, tree: BlockTree, tip: TreeBlock): void {
  expect(bytesToHex(c.chain.importer.headInfo.hash)).toBe(bytesToHex(tip.hash));
  expect(bytesToHex(c.store.getHead()?.hash ?? new Uint8Array())).toBe(bytesToHex(tip.hash));
  const want = tree.stateAt(tip);
  const got = new HistoricalState(c.store, Number(tip.number));
  for (const key of TREE_KEYS) {
    const a = addressFromPrivateKey(key);
    expect(acct(got.getAccount(a))).toEqual(acct(want.getAccount(a)));
  }
  expect(acct(got.getAccount(carol))).toEqual(acct(want.getAccount(carol)));
  expect(acct(c.chain.importer.state.getAccount(carol))).toEqual(acct(want.getAccount(carol)));
}

function expectCheckClean(c: Chain): void {
  const report = checkStore(c.datadir);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

/** A trunk A1..A3 (in turn) and a branch B2..B4 off A1 whose first block is out of turn: B4 outweighs A3. */
async function forkedTree(): Promise<{ tree: BlockTree; a: TreeBlock[]; b: TreeBlock[] }> {
  const tree = fixtureTree();
  const a = await tree.chain(tree.genesis, 3, { transfers: [{ key: alice, to: carol, value: 1n }], calls: [{ key: bob, to: LOGGER }] });
  const b2 = await tree.child(a[0], { difficulty: 1n, transfers: [{ key: alice, to: carol, value: 7n }], salt: 1 });
  const b = [b2, ...(await tree.chain(b2, 2, { transfers: [{ key: bob, to: carol, value: 3n }], salt: 1 }))];
  return { tree, a, b };
}

describe('side chains', () => {
  it('default: a lighter block on another parent is executed, stored off the chain with its receipts; the head stays', async () => {
    const { tree, a, b } = await forkedTree();
    const c = openChain(tree);
    expect(await insertAll(c, a)).toEqual(['head', 'head', 'head']);
    expect(await insertAll(c, b.slice(0, 2))).toEqual(['side', 'side']);
    expectHeadState(c, tree, a[2]);
    expect(c.store.getSideBlockCount()).toBe(2);
    expect(bytesToHex(c.store.getCanonicalHash(2) as Uint8Array)).toBe(bytesToHex(a[1].hash));
    expect(c.store.getReceipts(b[0].hash)?.length).toBeGreaterThan(1);
    expect(c.store.getTotalDifficulty(b[1].hash)).toBe(1n + 2n + 1n + 2n);
    // The side block's transactions are not on the chain: no lookup, no receipt by hash.
    expect(c.store.getTxLocation(b[0].txHashes[0])).toBeUndefined();
    expect((await c.chain.insertRlp(b[0].rlp)).kind).toBe('known');
    expectCheckClean(c);
  });

  it('behavior: the heavier branch becomes the head in one reorg: state unwound and re-applied, lookups and logs follow', async () => {
    const { tree, a, b } = await forkedTree();
    const c = openChain(tree);
    await insertAll(c, a);
    const results = [];
    for (const blk of b) results.push(await c.chain.insertRlp(blk.rlp));
    expect(results.map((r) => r.kind)).toEqual(['side', 'side', 'reorg']);
    const reorg = results[2].kind === 'reorg' ? results[2].reorg : undefined;
    expect(reorg?.ancestor.number).toBe(1n);
    expect(reorg?.dropped.map((d) => bytesToHex(d.hash))).toEqual([a[1], a[2]].map((x) => bytesToHex(x.hash)));
    expect(reorg?.dropped[0].txHashes.map(bytesToHex)).toEqual(a[1].txHashes.map(bytesToHex));
    expect(reorg?.dropped.map((d) => d.hasLogs)).toEqual([true, true]);
    // Orphaned: only the dropped transactions whose nonce the new branch left unused (A3's transfer by alice: the
    // branch spent alice's nonce 1 and bob's nonces 1 and 2).
    expect(reorg?.orphaned.map((o) => bytesToHex(decodeTransaction(o.raw).hash))).toEqual([bytesToHex(a[2].txHashes[0])]);
    expect(reorg?.orphaned.map((o) => bytesToHex(o.sender))).toEqual([bytesToHex(addressFromPrivateKey(alice))]);
    expect(reorg?.added.map((x) => bytesToHex(x.imported.hash))).toEqual(b.map((x) => bytesToHex(x.hash)));
    expectHeadState(c, tree, b[2]);
    for (const [i, blk] of [a[0], ...b].entries())
      expect(bytesToHex(c.store.getCanonicalHash(i + 1) as Uint8Array)).toBe(bytesToHex(blk.hash));
    // Dropped transactions lose their lookup (a receipt by tx hash answers nothing); the new branch's are found.
    expect(c.store.getTxLocation(a[2].txHashes[0])).toBeUndefined();
    expect(c.store.getTxLocation(b[2].txHashes[0])?.blockNumber).toBe(4);
    expect(c.store.getLogs({ fromBlock: 2, toBlock: 10 })).toEqual([]);
    expect(c.store.getLogs({ fromBlock: 1, toBlock: 1 })).toHaveLength(1);
    expect(c.store.getSideBlockCount()).toBe(2);
    expect(c.chain.importer.headTd).toBe(1n + 2n + 1n + 2n + 2n);
    expectCheckClean(c);
    // The next block on the new head imports as usual.
    const b5 = await tree.child(b[2], { transfers: [{ key: alice, to: carol, value: 1n }] });
    expect((await c.chain.insertRlp(b5.rlp)).kind).toBe('head');
    expectHeadState(c, tree, b5);
  });

  it('behavior: back and forth: the old branch wins again; its blocks rejoin without rewriting their records', async () => {
    const { tree, a, b } = await forkedTree();
    const c = openChain(tree);
    await insertAll(c, [...a, ...b]);
    const bytes = c.store.stats.bytesAppended;
    // A4 out of turn weighs as much as B4 but is higher: B stays. A5 tips it.
    const a4 = await tree.child(a[2], { difficulty: 1n });
    const a5 = await tree.child(a4);
    expect(await insertAll(c, [a4, a5])).toEqual(['side', 'reorg']);
    expectHeadState(c, tree, a5);
    // A2 and A3 rejoined from their stored records: only A4 and A5 appended bytes.
    const appended = c.store.stats.bytesAppended - bytes;
    expect(appended).toBeLessThan(2 * (a4.rlp.length + a5.rlp.length) + 4096);
    expectCheckClean(c);
  });

  it('behavior: geth tie-breaks: equal weight prefers the lower block, then a coin', async () => {
    const tree = fixtureTree();
    const [a1, a2] = await tree.chain(tree.genesis, 2, { difficulty: 1n });
    const b1 = await tree.child(tree.genesis, { difficulty: 2n, salt: 2 });
    // b1: TD 3 = a2's TD 3, lower: wins.
    const c = openChain(tree);
    await insertAll(c, [a1, a2]);
    expect((await c.chain.insertRlp(b1.rlp)).kind).toBe('reorg');
    expectHeadState(c, tree, b1);
    // Same weight, same height: the coin decides.
    const x1 = await tree.child(tree.genesis, { difficulty: 2n, salt: 3 });
    expect((await c.chain.insertRlp(x1.rlp)).kind).toBe('side'); // coin 0.9: stay
    const heads = openChain(tree, newDatadir(), {}, 0.1);
    await insertAll(heads, [b1]);
    expect((await heads.chain.insertRlp(x1.rlp)).kind).toBe('reorg'); // coin 0.1: switch
    expectHeadState(heads, tree, x1);
  });

  it('error: an invalid side block is refused and nothing is written; an unknown parent is named', async () => {
    const { tree, a, b } = await forkedTree();
    const c = openChain(tree);
    await insertAll(c, a);
    const bad = decodeBlock(b[0].rlp);
    bad.header = { ...bad.header, stateRoot: new Uint8Array(32).fill(9) };
    delete bad.header.rlp;
    await expect(c.chain.insert(bad)).rejects.toMatchObject({ code: 'BLOCK_BAD_STATE_ROOT' });
    expect(c.store.getSideBlockCount()).toBe(0);
    await expect(c.chain.insertRlp(b[1].rlp)).rejects.toMatchObject({ code: 'BLOCK_UNKNOWN_PARENT' });
    expectHeadState(c, tree, a[2]);
    expectCheckClean(c);
  });

  it('behavior: side blocks are durable: after a reopen (caches cold) a new block still reorgs onto their branch', async () => {
    const { tree, a, b } = await forkedTree();
    const datadir = newDatadir();
    const first = openChain(tree, datadir);
    await insertAll(first, [...a, ...b.slice(0, 2)]);
    first.store.close();
    open.length = 0;
    const again = openChain(tree, datadir);
    expect(again.store.getSideBlockCount()).toBe(2);
    expect((await again.chain.insertRlp(b[2].rlp)).kind).toBe('reorg');
    expectHeadState(again, tree, b[2]);
    expectCheckClean(again);
  });

  it('error: a reorg whose commit fails leaves the old head and state, durably; the chain goes on from there', async () => {
    const { tree, a, b } = await forkedTree();
    let fail = false;
    const datadir = newDatadir();
    const c = openChain(tree, datadir, {}, 0.9, {
      beforeCommit: () => {
        if (fail) throw Object.assign(new Error('injected I/O error'), { code: 'EIO' });
      },
    });
    await insertAll(c, [...a, ...b.slice(0, 2)]);
    fail = true;
    await expect(c.chain.insertRlp(b[2].rlp)).rejects.toMatchObject({ code: 'STORE_IO' });
    fail = false;
    expectHeadState(c, tree, a[2]);
    expect(c.store.durability().kind).toBe('Durable');
    const a4 = await tree.child(a[2]);
    expect((await c.chain.insertRlp(a4.rlp)).kind).toBe('head');
    c.store.close();
    open.length = 0;
    const again = openChain(tree, datadir);
    expectHeadState(again, tree, a4);
    expectCheckClean(again);
  });

  it('behavior: bounds: past maxSideBlocks the lowest side blocks go (their descendants with them); deeper forks are refused', async () => {
    const tree = fixtureTree();
    const trunk = await tree.chain(tree.genesis, 6);
    const c = openChain(tree, newDatadir(), { maxSideBlocks: 3, maxSideDepth: 4 });
    await insertAll(c, trunk);
    // Side blocks at heights 3, 4, 5 (one branch off 2) and one at 6 (off 5): the lowest goes first.
    const side = await tree.chain(trunk[1], 3, { difficulty: 1n, salt: 5 });
    expect(await insertAll(c, side)).toEqual(['side', 'side', 'side']);
    const other = await tree.child(trunk[4], { difficulty: 1n, salt: 6 });
    expect((await c.chain.insertRlp(other.rlp)).kind).toBe('side');
    // Four would be stored: the lowest (height 3) is pruned, and its children (4, 5) with it.
    expect(c.store.getSideBlockCount()).toBe(1);
    expect(c.store.getHeaderByHash(side[0].hash)).toBeUndefined();
    expect(c.store.getHeaderByHash(side[2].hash)).toBeUndefined();
    expectCheckClean(c);
    // Forking off block 1 is 5 below the head 6: refused, nothing stored.
    const deep = await tree.child(trunk[0], { difficulty: 1n, salt: 7 });
    await expect(c.chain.insertRlp(deep.rlp)).rejects.toMatchObject({ code: 'IMPORT_FORK_TOO_DEEP' });
    expect(c.store.getHeaderByHash(deep.hash)).toBeUndefined();
    // As the head moves on, side blocks that fall more than 4 below it are pruned.
    const more = await tree.chain(trunk[5], 5);
    await insertAll(c, more);
    expect(c.store.getSideBlockCount()).toBe(0);
    expectCheckClean(c);
  });

  it('behavior: a side block joining in a follower batch (group commit) reorgs durably with the batch before it', async () => {
    const { tree, a, b } = await forkedTree();
    const datadir = newDatadir();
    const c = openChain(tree, datadir, { batch: 16 });
    await insertAll(c, [...a, ...b]);
    expect(c.store.durability().kind).toBe('Durable');
    expectHeadState(c, tree, b[2]);
    c.store.close();
    open.length = 0;
    const again = openChain(tree, datadir);
    expectHeadState(again, tree, b[2]);
    expect(equalBytes(again.store.getCanonicalHash(1) as Uint8Array, a[0].hash)).toBe(true);
  });
});
