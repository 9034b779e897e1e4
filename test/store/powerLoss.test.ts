import { cpSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticChain, SPIKE_SHAPE } from '../../core/bench/store/syntheticBlocks.ts';
import { ChainStore, checkStore } from '../../core/store/index.ts';
import { PowerLossFs } from './support/faultFs.ts';
import { datadirFactory } from './support/tmpDatadir.ts';
import { expectSameBytes } from './support/bytes.ts';
import { connectionOf } from '../../core/store/connection.ts';

const newDir = datadirFactory();
const shape = { ...SPIKE_SHAPE, bodyBytes: 3000, receiptsBytes: 500, txs: 2 };

/**
 * Abandons the store as a crash would: the open SQLite transaction is never committed, no steady(), no sync; the
 * LOCK file goes too, as it would be stale once the owning process died (this process lives on).
 */
function crash(store: ChainStore, datadir: string): void {
  connectionOf(store).close();
  rmSync(join(datadir, 'LOCK'));
}

describe('power loss', () => {
  it('default: unsynced segment writes vanish; SQLite never points at missing bytes; every durable block is intact', () => {
    // Random batch sizes, segment sizes and crash points; bounded to 12 rounds.
    let rnd = 12345;
    const next = (n: number) => ((rnd = (rnd * 1103515245 + 12345) & 0x7fffffff), rnd % n);
    for (let round = 0; round < 12; round++) {
      const datadir = newDir();
      const fs = new PowerLossFs();
      const batch = next(3) === 0 ? 0 : 1 + next(6);
      const store = ChainStore.open({ datadir, batch, maxSegmentBytes: 4096 * (1 + next(4)) }, { segmentFs: fs });
      const chain = syntheticChain(round, 0, 5 + next(20), undefined, shape);
      let durable = -1;
      store.onDurability((d) => {
        if (d.kind === 'Durable') durable = store.getHead()?.number ?? -1;
      });
      for (const b of chain) {
        store.putBlock(b);
        if (batch === 0) durable = b.number;
      }
      crash(store, datadir);
      fs.powerCut();
      const again = ChainStore.open({ datadir });
      expect(again.getHead()?.number ?? -1, `round ${round} batch ${batch}`).toBe(durable);
      for (const b of chain.filter((x) => x.number <= durable)) {
        expectSameBytes(again.getBody(b.hash), b.bodyRlp);
        expectSameBytes(again.getReceipts(b.hash), b.receiptsRlp);
      }
      expect(again.getCanonicalHash(durable + 1)).toBeUndefined();
      again.close();
      expect(checkStore(datadir)).toMatchObject({ ok: true, problemCount: 0 });
    }
  });

  it('behavior: a crash after the segment sync but before COMMIT leaves synced bytes that reconcile cuts', () => {
    const datadir = newDir();
    const snapshot = newDir();
    const chain = syntheticChain(99, 0, 6, undefined, shape);
    let snap = false;
    const store = ChainStore.open(
      { datadir, batch: 3, maxSegmentBytes: 8192 },
      // The moment between sync and COMMIT, frozen: copy the datadir exactly as a crash would leave it.
      { faults: { beforeCommit: () => void (snap && cpSync(datadir, snapshot, { recursive: true })) } },
    );
    for (const b of chain.slice(0, 3)) store.putBlock(b);
    snap = true;
    for (const b of chain.slice(3, 6)) store.putBlock(b);
    store.close();
    rmSync(join(snapshot, 'LOCK')); // held by this (live) process when the copy was taken
    const again = ChainStore.open({ datadir: snapshot });
    expect(again.getHead()?.number).toBe(2);
    const r = again.reconcileReport;
    expect(r.cutBytes + r.removedBytes).toBeGreaterThan(3 * 3000);
    again.close();
    const segs = join(snapshot, 'segments');
    expect(checkStore(snapshot)).toMatchObject({ ok: true, segments: { uncommittedTailBytes: 0, strayFiles: 0 } });
    expect(statSync(segs).isDirectory()).toBe(true);
  });
});
