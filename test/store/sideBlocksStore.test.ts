/**
 * The store's side of side chains (docs/store.md, "Side chains") with synthetic blocks: side blocks stored off the
 * canonical chain and durable, a reorg as one transaction whose failure leaves everything as it was, and a pinned
 * read-only snapshot that keeps answering for the head it was pinned at while a reorg commits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticBlock, ZERO_HASH } from '../../core/bench/store/syntheticBlocks.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';
import { ChainStore, checkStore, openReadOnly, type BlockRecord, type ReadOnlyChainStore } from '../../core/store/index.ts';
import { CRASH_SHAPE } from '../crash/shape.ts';
import { datadirFactory } from './support/tmpDatadir.ts';

const newDatadir = datadirFactory();
const open: { close(): void }[] = [];
afterEach(() => {
  while (open.length) open.pop()?.close();
});

function chain(seed: number, parent: BlockRecord | undefined, from: number, count: number): BlockRecord[] {
  const out: BlockRecord[] = [];
  for (let n = from; n < from + count; n++)
    out.push(syntheticBlock(seed, n, (out[out.length - 1] ?? parent)?.hash ?? ZERO_HASH, CRASH_SHAPE));
  return out;
}

const hex = (b: Uint8Array | undefined): string => (b ? bytesToHex(b) : 'none');

describe('side blocks in the store', () => {
  it('behavior: a side block is stored by hash only, durable, and tracked; db check is clean', () => {
    const datadir = newDatadir();
    const store = ChainStore.open({ datadir, batch: 0 });
    open.push(store);
    const main = chain(1, undefined, 0, 4);
    for (const b of main) store.putBlock(b);
    const side = chain(2, main[1], 2, 2);
    for (const b of side) store.putSideBlock(b);
    expect(store.getSideBlockCount()).toBe(2);
    expect(hex(store.getCanonicalHash(2))).toBe(hex(main[2].hash));
    expect(hex(store.getBody(side[1].hash))).toBe(hex(side[1].bodyRlp));
    expect(store.getTxLocation(side[0].txHashes[0])).toBeUndefined();
    expect(store.getLogs({ fromBlock: 0, toBlock: 10 }).every((l) => l.blockNumber <= 3)).toBe(true);
    expect(() => store.putSideBlock(syntheticBlock(3, 9, new Uint8Array(32).fill(1), CRASH_SHAPE))).toThrow(/parent is not stored/);
    expect(checkStore(datadir)).toMatchObject({ ok: true, sideBlocks: 2 });
  });

  it('behavior: a reorg commits as one transaction; a failing one leaves chain, lookups and side blocks as they were', async () => {
    const datadir = newDatadir();
    const store = ChainStore.open({ datadir, batch: 0 });
    open.push(store);
    const main = chain(1, undefined, 0, 4);
    for (const b of main) store.putBlock(b);
    const side = chain(2, main[1], 2, 3);
    await expect(
      store.reorg(1, undefined, async () => {
        store.putBlock(side[0]);
        throw new Error('invalid block on the new branch');
      }),
    ).rejects.toThrow('invalid block on the new branch');
    expect(hex(store.getHead()?.hash)).toBe(hex(main[3].hash));
    expect(store.getTxLocation(main[3].txHashes[0])?.blockNumber).toBe(3);
    expect(store.getSideBlockCount()).toBe(0);
    expect(store.durability().kind).toBe('Durable');
    await store.reorg(1, undefined, async () => {
      for (const b of side) store.putBlock(b);
    });
    expect(hex(store.getHead()?.hash)).toBe(hex(side[2].hash));
    expect(store.getTxLocation(main[3].txHashes[0])).toBeUndefined();
    expect(store.getTxLocation(side[2].txHashes[0])?.blockNumber).toBe(4);
    expect(store.getSideBlockCount()).toBe(2);
    expect(checkStore(datadir)).toMatchObject({ ok: true, sideBlocks: 2 });
  });

  it('behavior: a pinned read-only snapshot keeps its head and chain through a reorg until it is pinned again', async () => {
    const datadir = newDatadir();
    const store = ChainStore.open({ datadir, batch: 0 });
    open.push(store);
    const main = chain(1, undefined, 0, 4);
    for (const b of main) store.putBlock(b);
    const reader: ReadOnlyChainStore = openReadOnly(datadir);
    open.push(reader);
    expect(hex(reader.pin()?.hash)).toBe(hex(main[3].hash));
    const side = chain(2, main[1], 2, 3);
    await store.reorg(1, undefined, async () => {
      for (const b of side) store.putBlock(b);
    });
    // Still the old chain, consistently: head, canonical hashes, lookups.
    expect(hex(reader.getHead()?.hash)).toBe(hex(main[3].hash));
    expect(hex(reader.getCanonicalHash(3))).toBe(hex(main[3].hash));
    expect(reader.getTxLocation(main[3].txHashes[0])?.blockNumber).toBe(3);
    expect(hex(reader.pin()?.hash)).toBe(hex(side[2].hash));
    expect(hex(reader.getCanonicalHash(3))).toBe(hex(side[1].hash));
    expect(reader.getTxLocation(main[3].txHashes[0])).toBeUndefined();
  });

  it('behavior: settle() moves the pin to a checkpointed snapshot only when it serves the same head', () => {
    const datadir = newDatadir();
    const store = ChainStore.open({ datadir, batch: 0 });
    open.push(store);
    const main = chain(1, undefined, 0, 3);
    for (const b of main) store.putBlock(b);
    const reader = openReadOnly(datadir);
    open.push(reader);
    reader.pin();
    store.checkpoint();
    expect(reader.settle(main[2].hash)).toBe(true);
    expect(hex(reader.getHead()?.hash)).toBe(hex(main[2].hash));
    // A commit the pin has not taken: the spare sees another head, so the pin stays where it was.
    const next = chain(1, main[2], 3, 1)[0];
    store.putBlock(next);
    expect(reader.settle(main[2].hash)).toBe(false);
    expect(hex(reader.getHead()?.hash)).toBe(hex(main[2].hash));
    expect(hex(reader.pin()?.hash)).toBe(hex(next.hash));
  });
});
