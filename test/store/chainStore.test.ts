import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore, type Durability } from '../../core/store/index.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { expectSameBytes } from './support/bytes.ts';
import { connectionOf } from '../../core/store/connection.ts';

const newDir = datadirFactory();

describe('ChainStore', () => {
  it('default: producer commits each block durably; everything reads back after reopen', () => {
    const datadir = newDir();
    const chain = syntheticChain(1, 0, 9, undefined, { ...SPIKE_SHAPE, bodyBytes: 3000, txs: 3 });
    const store = ChainStore.open({ datadir });
    for (const b of chain) {
      store.putBlock(b);
      expect(store.durability()).toEqual({ kind: 'Durable' });
    }
    expect(store.stats).toMatchObject({ commits: 10, blocks: 10, fileSyncs: 10, dirSyncs: 1 });
    store.close();
    const again = ChainStore.open({ datadir });
    expect(again.reconcileReport).toMatchObject({ cutBytes: 0, removedFiles: 0 });
    expect(again.getHead()).toEqual({ number: 9, hash: Buffer.from(chain[9].hash) });
    for (const b of chain) {
      expect(again.getCanonicalHash(b.number)).toEqual(Buffer.from(b.hash));
      expect(again.getHeaderByNumber(b.number)?.headerRlp).toEqual(Buffer.from(b.headerRlp));
      expectSameBytes(again.getBody(b.hash), b.bodyRlp);
      expectSameBytes(again.getReceipts(b.hash), b.receiptsRlp);
      b.txHashes.forEach((h, i) =>
        expect(again.getTxLocation(h)).toEqual({ blockNumber: b.number, blockHash: Buffer.from(b.hash), txIndex: i }),
      );
    }
    again.close();
  });

  it("behavior: 'process-exit' commits (the dev chain) leave the disk flush to the OS until close, then read back alike", () => {
    const datadir = newDir();
    const chain = syntheticChain(1, 0, 9, undefined, { ...SPIKE_SHAPE, bodyBytes: 3000, txs: 3 });
    const store = ChainStore.open({ datadir, commitSurvives: 'process-exit' });
    expect(connectionOf(store).pragma('synchronous', { simple: true })).toBe(0);
    for (const b of chain) {
      store.putBlock(b);
      expect(store.durability()).toEqual({ kind: 'Durable' });
    }
    expect(store.stats).toMatchObject({ commits: 10, blocks: 10, fileSyncs: 0, dirSyncs: 0 });
    store.close();
    expect(store.stats).toMatchObject({ fileSyncs: 1, dirSyncs: 1 });
    // A power-loss datadir reopens it: the mode is the writer's choice, not a property of the files.
    const again = ChainStore.open({ datadir });
    expect(again.reconcileReport).toMatchObject({ cutBytes: 0, removedFiles: 0 });
    expect(again.getHead()).toEqual({ number: 9, hash: Buffer.from(chain[9].hash) });
    for (const b of chain) expectSameBytes(again.getBody(b.hash), b.bodyRlp);
    again.close();
  });

  it('error: an unknown commitSurvives value is refused', () => {
    expect(() => ChainStore.open({ datadir: newDir(), commitSurvives: 'never' as 'power-loss' })).toThrow(
      expect.objectContaining({ code: 'STORE_BAD_OPTIONS' }),
    );
  });

  it('behavior: follower batch is Degraded(BATCH, n) until steady(), with an event on each change', () => {
    const datadir = newDir();
    const store = ChainStore.open({ datadir, batch: 4 });
    const seen: Durability[] = [];
    store.onDurability((d) => seen.push(d));
    const chain = syntheticChain(2, 0, 5);
    for (const b of chain.slice(0, 3)) store.putBlock(b);
    expect(store.durability()).toEqual({ kind: 'Degraded', reason: 'BATCH', pending: 3 });
    store.steady();
    expect(store.durability()).toEqual({ kind: 'Durable' });
    // The fourth block of a batch fills it: steady runs by itself.
    for (const b of chain.slice(3, 6)) store.putBlock(b);
    expect(store.durability()).toEqual({ kind: 'Degraded', reason: 'BATCH', pending: 3 });
    expect(seen.map((d) => (d.kind === 'Durable' ? 0 : d.pending))).toEqual([1, 2, 3, 0, 1, 2, 3]);
    expect(store.stats.commits).toBe(1);
    store.close();
    const again = ChainStore.open({ datadir });
    expect(again.getHead()?.number).toBe(5);
    again.close();
  });

  it('behavior: releaseMemory gives the page cache back only between transactions, and reads still work after it', () => {
    const datadir = newDir();
    const store = ChainStore.open({ datadir, batch: 4 });
    const chain = syntheticChain(2, 0, 3);
    for (const b of chain.slice(0, 2)) store.putBlock(b);
    expect(store.releaseMemory()).toBe(false); // the follower batch is open
    store.steady();
    expect(store.releaseMemory()).toBe(true);
    expect(store.getHead()?.number).toBe(1);
    store.putBlock(chain[2]!);
    store.steady();
    expect(store.getHead()?.number).toBe(2);
    store.close();
  });

  it('behavior: a failing block inside a batch rolls back to its savepoint; earlier blocks stay', () => {
    const datadir = newDir();
    const store = ChainStore.open({ datadir, batch: 8 });
    const chain = syntheticChain(3, 0, 3, undefined, { ...SPIKE_SHAPE, bodyBytes: 500, txs: 2 });
    store.putBlock(chain[0]);
    store.putBlock(chain[1]);
    // Same log index twice: the logs insert fails after the segment append and the block rows were written.
    const bad = { ...chain[2], logs: [chain[2].logs[0], chain[2].logs[0]] };
    expect(() => store.putBlock(bad)).toThrow(expect.objectContaining({ code: 'STORE_BAD_BLOCK' }));
    expect(store.durability()).toEqual({ kind: 'Degraded', reason: 'BATCH', pending: 2 });
    expect(store.getHeaderByHash(chain[2].hash)).toBeUndefined();
    expect(store.getTxLocation(chain[2].txHashes[0])).toBeUndefined();
    store.putBlock(chain[2]);
    store.putBlock(chain[3]);
    store.steady();
    store.close();
    const again = ChainStore.open({ datadir });
    expect(again.reconcileReport.cutBytes).toBe(0);
    expect(again.getHead()?.number).toBe(3);
    expectSameBytes(again.getBody(chain[2].hash), chain[2].bodyRlp);
    again.close();
  });

  it('error: a block that does not extend the head is refused and nothing is written', () => {
    const datadir = newDir();
    const store = ChainStore.open({ datadir });
    const chain = syntheticChain(4, 0, 2);
    store.putBlock(chain[0]);
    expect(() => store.putBlock(chain[2])).toThrow(expect.objectContaining({ code: 'STORE_BAD_BLOCK' }));
    const other = syntheticChain(5, 1, 1, new Uint8Array(32).fill(7))[0];
    expect(() => store.putBlock(other)).toThrow(/does not extend the head 0/);
    expect(() => store.putBlock({ ...chain[1], hash: new Uint8Array(31) })).toThrow(/hash must be 32 bytes/);
    expect(store.stats.bytesAppended).toBe(8 * 2 + 3 + 1);
    expect(store.getHead()?.number).toBe(0);
    store.close();
  });

  it('behavior: unwind removes canonical entries, lookups and logs above the target and moves head and safe back', () => {
    const datadir = newDir();
    const store = ChainStore.open({ datadir });
    const chain = syntheticChain(6, 0, 5, undefined, { ...SPIKE_SHAPE, bodyBytes: 100, txs: 2 });
    for (const b of chain) store.putBlock(b);
    store.setHead('safe', 4);
    store.setHead('finalized', 1);
    let extraRan = false;
    expect(store.unwind(2, () => (extraRan = true))).toBe(3);
    expect(extraRan).toBe(true);
    expect(store.getHead()).toEqual({ number: 2, hash: Buffer.from(chain[2].hash) });
    expect(store.getHead('safe')?.number).toBe(2);
    expect(store.getCanonicalHash(3)).toBeUndefined();
    expect(store.getTxLocation(chain[4].txHashes[0])).toBeUndefined();
    expect(store.getLogs({ fromBlock: 0, toBlock: 10 }).every((l) => l.blockNumber <= 2)).toBe(true);
    // The unwound block stays addressable by hash; a different block 3 can now be put.
    expectSameBytes(store.getBody(chain[4].hash), chain[4].bodyRlp);
    const fork = syntheticChain(7, 3, 3, chain[2].hash)[0];
    store.putBlock(fork);
    expect(() => store.unwind(0)).toThrow(/below finalized 1/);
    store.close();
  });

  it('error: options out of range and use after close', () => {
    const datadir = newDir();
    expect(() => ChainStore.open({ datadir, batch: 129 })).toThrow(expect.objectContaining({ code: 'STORE_BAD_OPTIONS' }));
    const store = ChainStore.open({ datadir });
    store.close();
    expect(() => store.steady()).toThrow(expect.objectContaining({ code: 'STORE_CLOSED' }));
  });
});
