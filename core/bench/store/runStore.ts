/**
 * Drives a ChainStore over synthetic blocks and measures each commit: the spike (one durable commit per block) and
 * group commit (follower batches). Block generation happens outside the timed section.
 */
import { rmSync } from 'node:fs';
import { ChainStore, type StoreStats } from '../../store/index.ts';
import type { SynchronousLevel } from '../../store/sqlite/pragmas.ts';
import { deviceFlushes } from './env.ts';
import { summarize } from './stats.ts';
import { syntheticBlock, ZERO_HASH, type SyntheticShape } from './syntheticBlocks.ts';

/** One measured run. */
export interface StoreRun {
  blocks: number;
  batch: number;
  synchronous: SynchronousLevel;
  /** Per putBlock (producer) or per batch commit incl. its blocks (follower), ms. */
  latency: ReturnType<typeof summarize>;
  elapsedMs: number;
  blocksPerSecond: number;
  stats: StoreStats;
  /** System-wide device flush requests during the run (cross-check only). */
  deviceFlushes: number | undefined;
}

/** Writes `blocks` blocks of `shape` to a fresh `datadir` with the given batch and synchronous level. */
export function runStore(
  datadir: string,
  blocks: number,
  batch: number,
  shape: SyntheticShape,
  synchronous: SynchronousLevel,
  device?: string,
): StoreRun {
  rmSync(datadir, { recursive: true, force: true });
  const store = ChainStore.open({ datadir, batch }, { synchronous });
  const samples: number[] = [];
  const flushesBefore = device ? deviceFlushes(device) : undefined;
  let parent: Uint8Array = ZERO_HASH;
  let elapsed = 0;
  let batchStart = 0;
  for (let n = 0; n < blocks; n++) {
    const block = syntheticBlock(7, n, parent, shape);
    parent = block.hash;
    const t = performance.now();
    store.putBlock(block);
    const dt = performance.now() - t;
    elapsed += dt;
    if (batch === 0) samples.push(dt);
    else {
      batchStart += dt;
      if (store.durability().kind === 'Durable') {
        samples.push(batchStart);
        batchStart = 0;
      }
    }
  }
  const t = performance.now();
  store.steady();
  elapsed += performance.now() - t;
  const flushesAfter = device ? deviceFlushes(device) : undefined;
  const stats = store.stats;
  store.close();
  rmSync(datadir, { recursive: true, force: true }); // hundreds of MB per run otherwise
  return {
    blocks,
    batch,
    synchronous,
    latency: summarize(samples),
    elapsedMs: Math.round(elapsed),
    blocksPerSecond: Math.round((blocks / elapsed) * 1000),
    stats,
    deviceFlushes: flushesBefore !== undefined && flushesAfter !== undefined ? flushesAfter - flushesBefore : undefined,
  };
}
