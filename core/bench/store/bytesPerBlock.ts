/**
 * Datadir growth per empty block: write a first run of blocks, measure the datadir (SQLite closed and checkpointed,
 * so no WAL), write more, measure again; the marginal figure excludes the fixed cost of an empty store.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ChainStore } from '../../store/index.ts';
import { round } from './stats.ts';
import { EMPTY_SHAPE, syntheticBlock, ZERO_HASH } from './syntheticBlocks.ts';

function duBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return total;
}

/** Bytes per empty block, average and marginal, with the split between SQLite and segments. */
export function measureBytesPerEmptyBlock(datadir: string, first: number, more: number) {
  rmSync(datadir, { recursive: true, force: true });
  let parent: Uint8Array = ZERO_HASH;
  let n = 0;
  const write = (count: number) => {
    const s = ChainStore.open({ datadir, batch: 128 });
    for (const end = n + count; n < end; n++) {
      const b = syntheticBlock(3, n, parent, EMPTY_SHAPE);
      parent = b.hash;
      s.putBlock(b);
    }
    s.close();
    return { total: duBytes(datadir), sqlite: statSync(join(datadir, 'chain.sqlite')).size, segments: duBytes(join(datadir, 'segments')) };
  };
  const a = write(first);
  const b = write(more);
  rmSync(datadir, { recursive: true, force: true });
  return {
    blocks: first + more,
    headerBytes: syntheticBlock(3, 1, ZERO_HASH, EMPTY_SHAPE).headerRlp.length,
    averageBytesPerBlock: round(b.total / (first + more), 1),
    marginalBytesPerBlock: round((b.total - a.total) / more, 1),
    marginalSqlitePerBlock: round((b.sqlite - a.sqlite) / more, 1),
    marginalSegmentsPerBlock: round((b.segments - a.segments) / more, 1),
  };
}
