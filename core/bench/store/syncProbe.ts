/**
 * Child entry for counting SQLite's own fsyncs: runs the store over `--blocks` blocks and prints the store's own
 * counted flushes as JSON. The parent runs it under `strace -f -c -e trace=fsync,fdatasync` twice (0 blocks and N
 * blocks); the difference in traced syncs minus the store's own is SQLite's syncs for N blocks.
 */
import { parseArgs } from 'node:util';
import { runStore } from './runStore.ts';
import { EMPTY_SHAPE, SEED_SPIKE_SHAPE, SPIKE_SHAPE } from './syntheticBlocks.ts';
import type { SynchronousLevel } from '../../store/sqlite/pragmas.ts';

const { values } = parseArgs({
  options: {
    datadir: { type: 'string' },
    blocks: { type: 'string' },
    batch: { type: 'string', default: '0' },
    sync: { type: 'string', default: 'FULL' },
    shape: { type: 'string', default: 'seed' },
  },
});
const r = runStore(
  values.datadir as string,
  Number(values.blocks),
  Number(values.batch),
  values.shape === 'empty' ? EMPTY_SHAPE : values.shape === 'indexed' ? SPIKE_SHAPE : SEED_SPIKE_SHAPE,
  values.sync as SynchronousLevel,
);
process.stdout.write(JSON.stringify({ ours: r.stats.fileSyncs + r.stats.dirSyncs, commits: r.stats.commits }) + '\n');
