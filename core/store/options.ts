/** Options and dependencies of the chain store, with their defaults. */
import { StoreError } from './errors.ts';
import { MIGRATIONS } from './schema/migrations.ts';
import type { Migration } from './schema/migration.ts';
import { nodeSegmentFs, type SegmentFs } from './segment/segmentFs.ts';
import type { SynchronousLevel } from './sqlite/pragmas.ts';
import { silentLogger, type StoreLogger } from './types.ts';

/** What the operator chooses. */
export interface StoreOptions {
  /** Directory holding `chain.sqlite` and `segments/`; created when missing. */
  datadir: string;
  /** 0 = producer: every block committed durably on its own. 1–128 = follower: blocks share one transaction up to this many. */
  batch?: number;
  /** A segment file rolls over once an append would pass this many bytes. */
  maxSegmentBytes?: number;
  /** Default deadline of every read, in milliseconds. */
  readDeadlineMs?: number;
  /** Most side-chain blocks kept; past it the lowest are pruned (docs/store.md, "Side chains"). */
  maxSideBlocks?: number;
  /** Side-chain blocks more than this many blocks below the head are pruned (and new ones refused). */
  maxSideDepth?: number;
  /**
   * What a returned commit survives. 'power-loss' (default, every real network): segment files and the WAL are
   * fsynced before COMMIT returns. 'process-exit' (the dev chain only, decisions 0036 and 0048: synchronous=OFF,
   * no segment fsync): the same writes in the same order, left to the OS to flush, so a killed or crashed node loses
   * nothing but a power loss or OS crash may lose the latest blocks (and may leave a datadir that refuses to open).
   */
  commitSurvives?: CommitSurvives;
}

/** See `StoreOptions.commitSurvives`. */
export type CommitSurvives = 'power-loss' | 'process-exit';

/** Defaults of `StoreOptions`. */
export const defaultStoreOptions = {
  batch: 0,
  maxSegmentBytes: 256 * 1024 * 1024,
  readDeadlineMs: 2_000,
  maxSideBlocks: 1_024,
  maxSideDepth: 128,
  commitSurvives: 'power-loss',
} as const satisfies Omit<StoreOptions, 'datadir'>;

/** Largest follower batch (one SAVEPOINT per block inside one transaction). */
export const MAX_BATCH = 128;

/** Injected faults: test seams only. */
export interface StoreFaults {
  /** Runs after the segment sync and right before COMMIT; throwing makes the commit fail like an I/O error would. */
  beforeCommit?: () => void;
}

/** What the store is built with besides options. */
export interface StoreDeps {
  logger?: StoreLogger;
  /** The disk (default) or a test stand-in for power loss and full disk. */
  segmentFs?: SegmentFs;
  /** Migrations to apply (default: `MIGRATIONS`). */
  migrations?: readonly Migration[];
  faults?: StoreFaults;
  /** Benchmark seam: NORMAL is not durable and is never used by the node. */
  synchronous?: SynchronousLevel;
}

/** Options with defaults filled in. */
export type ResolvedStoreOptions = Required<StoreOptions>;

/** Fills defaults and validates; throws STORE_BAD_OPTIONS. */
export function resolveStoreOptions(options: StoreOptions): ResolvedStoreOptions {
  const o = { ...defaultStoreOptions, ...options };
  if (!Number.isInteger(o.batch) || o.batch < 0 || o.batch > MAX_BATCH) {
    throw new StoreError('STORE_BAD_OPTIONS', `batch must be an integer 0..${MAX_BATCH}, got ${o.batch}`, { batch: o.batch });
  }
  for (const [name, v] of [
    ['maxSideBlocks', o.maxSideBlocks],
    ['maxSideDepth', o.maxSideDepth],
  ] as const) {
    if (!Number.isInteger(v) || v < 1)
      throw new StoreError('STORE_BAD_OPTIONS', `${name} must be a positive integer, got ${v}`, { [name]: v });
  }
  if (o.commitSurvives !== 'power-loss' && o.commitSurvives !== 'process-exit') {
    throw new StoreError('STORE_BAD_OPTIONS', `commitSurvives must be power-loss or process-exit, got ${String(o.commitSurvives)}`);
  }
  if (!(o.maxSegmentBytes >= 4096)) {
    throw new StoreError('STORE_BAD_OPTIONS', `maxSegmentBytes must be at least 4096, got ${o.maxSegmentBytes}`);
  }
  return o;
}

/** Deps with defaults filled in. */
export function resolveStoreDeps(deps: StoreDeps): Required<Omit<StoreDeps, 'faults'>> & StoreDeps {
  return { logger: silentLogger, segmentFs: nodeSegmentFs, migrations: MIGRATIONS, synchronous: 'FULL', ...deps };
}
