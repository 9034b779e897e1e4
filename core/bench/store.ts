/**
 * `npm run bench:store`: the chain store's benchmark, on a real disk path under the repo (.xone/bench; /tmp may be
 * tmpfs, where fsync is free). In one run: CRC-32C native vs pure JS; the raw cost of the flushes a commit needs
 * (measured right before and after the spike); the seeds' spike (2,000 opaque blocks of 56.6 KB, one durable commit
 * per block, synchronous FULL vs NORMAL); group commit with 128-block batches; the same with indexed blocks (100
 * transactions and 100 logs each); datadir bytes per empty block. Prints JSON, then one summary line.
 * Flushes per block = the store's own counted fsyncs + SQLite's syncs per commit (counted with strace in a child,
 * see store/sqliteSyncs.ts) × commits. Env: BENCH_STORE_BLOCKS (default 2000) shortens the run while developing.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32cBackend } from '../store/segment/crc32c.ts';
import { measureBytesPerEmptyBlock } from './store/bytesPerBlock.ts';
import { measureCrc } from './store/crcBench.ts';
import { findmnt, loadAverage } from './store/env.ts';
import { measureRaw } from './store/raw.ts';
import { runStore, type StoreRun } from './store/runStore.ts';
import { sqliteSyncsPerCommit } from './store/sqliteSyncs.ts';
import { round } from './store/stats.ts';
import { EMPTY_SHAPE, SEED_SPIKE_SHAPE, SPIKE_SHAPE } from './store/syntheticBlocks.ts';

const REPO = join(import.meta.dirname, '..', '..');
const dir = join(REPO, '.xone', 'bench', 'store');
mkdirSync(dir, { recursive: true });
const BLOCKS = Number(process.env.BENCH_STORE_BLOCKS ?? 2000);
const RECORD = SEED_SPIKE_SHAPE.bodyBytes;
const RAW_N = Math.min(BLOCKS, 300);
const RAW_BYTES = RECORD + 16;

const mount = findmnt(dir);
const device = mount.source;
const loadBefore = loadAverage();
const crc = measureCrc(RECORD);

type Sqlite = { perCommit: number } | { error: string };
const probe = (sync: 'FULL' | 'NORMAL', batch: number, shape: 'seed' | 'indexed' | 'empty') =>
  sqliteSyncsPerCommit(dir, batch === 0 ? 200 : 1024, batch, sync, shape);
const sqliteSyncs = {
  seedFULL: probe('FULL', 0, 'seed'),
  seedNORMAL: probe('NORMAL', 0, 'seed'),
  seedGroup128: probe('FULL', 128, 'seed'),
  indexedFULL: probe('FULL', 0, 'indexed'),
  indexedGroup128: probe('FULL', 128, 'indexed'),
};

function flushes(run: StoreRun, sqlite: Sqlite) {
  const ours = run.stats.fileSyncs + run.stats.dirSyncs;
  const sqliteCount = 'perCommit' in sqlite ? sqlite.perCommit * run.stats.commits : null;
  return {
    storeFsyncsPerBlock: round(ours / run.blocks, 4),
    sqliteSyncsPerBlock: sqliteCount === null ? null : round(sqliteCount / run.blocks, 4),
    flushesPerBlock: sqliteCount === null ? null : round((ours + sqliteCount) / run.blocks, 4),
    deviceFlushesPerBlock: run.deviceFlushes === undefined ? null : round(run.deviceFlushes / run.blocks, 3),
  };
}
const rate = (run: StoreRun) => round(1000 / run.latency.mean, 1);

// Raw costs right before and right after the FULL spike: the disk's speed drifts with the host's load.
const rawBefore = measureRaw(join(dir, 'raw'), RAW_N, RAW_BYTES);
const full = runStore(join(dir, 'spike-full'), BLOCKS, 0, SEED_SPIKE_SHAPE, 'FULL', device);
const rawAfter = measureRaw(join(dir, 'raw'), RAW_N, RAW_BYTES);
const normal = runStore(join(dir, 'spike-normal'), BLOCKS, 0, SEED_SPIKE_SHAPE, 'NORMAL', device);
const group = runStore(join(dir, 'group-128'), BLOCKS, 128, SEED_SPIKE_SHAPE, 'FULL', device);
const indexedProducer = runStore(join(dir, 'indexed-producer'), Math.min(BLOCKS, 300), 0, SPIKE_SHAPE, 'FULL', device);
const indexedGroup = runStore(join(dir, 'indexed-group'), Math.min(BLOCKS, 1024), 128, SPIKE_SHAPE, 'FULL', device);
const emptyProducer = runStore(join(dir, 'empty-producer'), Math.min(BLOCKS, 1000), 0, EMPTY_SHAPE, 'FULL', device);
const emptyGroup = runStore(join(dir, 'empty-group'), BLOCKS * 4, 128, EMPTY_SHAPE, 'FULL', device);
const bytes = measureBytesPerEmptyBlock(join(dir, 'bytes'), 1000, BLOCKS);

// The raw cost of the flushes one producer commit issues: segment append+fsync, directory fsync when a file was
// created (amortized), SQLite's durable commit.
const mid = (k: 'appendFsync' | 'dirFsync' | 'sqliteCommit') => (rawBefore[k].p50 + rawAfter[k].p50) / 2;
const rawFlushCostMs = round(mid('appendFsync') + (full.stats.dirSyncs / full.blocks) * mid('dirFsync') + mid('sqliteCommit'), 3);
const fullFlushes = flushes(full, sqliteSyncs.seedFULL);
const groupFlushes = flushes(group, sqliteSyncs.seedGroup128);

const result = {
  bench: 'store',
  date: new Date().toISOString(),
  node: process.version,
  path: dir,
  findmnt: mount,
  loadAverage: { before: loadBefore, after: loadAverage() },
  crc32c: { backend: crc32cBackend, recordBytes: RECORD, ...crc },
  raw: { recordBytes: RAW_BYTES, before: rawBefore, after: rawAfter, flushCostPerProducerBlockMs: rawFlushCostMs },
  sqliteSyncsPerCommit: sqliteSyncs,
  spike: {
    blocks: BLOCKS,
    shape: SEED_SPIKE_SHAPE,
    FULL: { latencyMs: full.latency, blocksPerSecond: full.blocksPerSecond, ...fullFlushes },
    NORMAL: { latencyMs: normal.latency, blocksPerSecond: normal.blocksPerSecond, ...flushes(normal, sqliteSyncs.seedNORMAL) },
    p50OverRawFlushCost: round(full.latency.p50 / rawFlushCostMs, 2),
  },
  groupCommit128: {
    blocks: group.blocks,
    batchLatencyMs: group.latency,
    blocksPerSecond: group.blocksPerSecond,
    ...groupFlushes,
    overPerBlockDurableRate: round(group.blocksPerSecond / rate(full), 1),
  },
  indexed: {
    shape: SPIKE_SHAPE,
    producer: { blocks: indexedProducer.blocks, latencyMs: indexedProducer.latency, ...flushes(indexedProducer, sqliteSyncs.indexedFULL) },
    group128: {
      blocks: indexedGroup.blocks,
      blocksPerSecond: indexedGroup.blocksPerSecond,
      ...flushes(indexedGroup, sqliteSyncs.indexedGroup128),
    },
    groupOverProducer: round(indexedGroup.blocksPerSecond / rate(indexedProducer), 1),
  },
  emptyBlocks: {
    producerLatencyMs: emptyProducer.latency,
    producerBlocksPerSecond: emptyProducer.blocksPerSecond,
    group128BlocksPerSecond: emptyGroup.blocksPerSecond,
    groupOverProducer: round(emptyGroup.blocksPerSecond / rate(emptyProducer), 1),
  },
  bytesPerEmptyBlock: bytes,
  targets: {
    producerFlushesPerBlockMax4: fullFlushes.flushesPerBlock !== null && fullFlushes.flushesPerBlock <= 4,
    producerP50Within125PctOfRawFlushes: full.latency.p50 <= 1.25 * rawFlushCostMs,
    followerFlushesPerBlockMax004: groupFlushes.flushesPerBlock !== null && groupFlushes.flushesPerBlock <= 0.04,
    groupCommitAtLeast50xPerBlock: group.blocksPerSecond >= 50 * rate(full),
    bytesPerEmptyBlockMax1500: bytes.marginalBytesPerBlock <= 1500,
  },
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
process.stdout.write(
  `store: ${mount.fstype} ${mount.source}, load ${loadBefore[0]}; spike FULL p50 ${full.latency.p50} ms (raw flushes ${rawFlushCostMs} ms, ×${result.spike.p50OverRawFlushCost}), ` +
    `${fullFlushes.flushesPerBlock} flushes/block; NORMAL p50 ${normal.latency.p50} ms; group-128 ${group.blocksPerSecond} blocks/s ` +
    `(${groupFlushes.flushesPerBlock} flushes/block, ×${result.groupCommit128.overPerBlockDurableRate} per-block rate); ` +
    `indexed ×${result.indexed.groupOverProducer}; empty ×${result.emptyBlocks.groupOverProducer}; ${bytes.marginalBytesPerBlock} B/empty block; CRC native ×${crc.nativeOverJs} JS\n`,
);
