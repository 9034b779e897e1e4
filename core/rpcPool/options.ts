/**
 * Options of the RPC execution pool, with their ranges: `xone run --rpc.workers` and friends are validated against
 * the same bounds (docs/cli.md). Every value in range is safe for the main loop and the chain thread: the work runs
 * in worker threads at a lower CPU priority, each request has a hard deadline, and the queue is bounded.
 */
import { availableParallelism } from 'node:os';

export interface RpcPoolOptions {
  /**
   * Most worker threads (`--rpc.workers`, default `defaultRpcWorkers()`), 1..MAX_RPC_WORKERS. Threads start on
   * demand: `warm` of them stay up, and one idle spare is kept ready while fewer than `workers` run, so a call that
   * finds every thread busy with long work starts at once on the spare.
   */
  workers: number;
  /**
   * Threads kept up even when idle (default 2, at most `workers`; 0 = none until the first job, and none again once
   * every thread has been idle for `idleMs`: a follower's choice, where threads are memory it rarely uses). Each costs about 22 MB idle and 30 MB after a
   * cheap-call flood on the bundled CLI (idle dev node 144 MB RSS with 1, 165 MB with 2; from the TypeScript sources
   * through tsx, 47 MB a thread: 362 / 409 MB), which small self-hosted VMs feel; the cost of fewer is that clients
   * arriving together (an attack) take the spare each in turn, and on a host at load 38 a newcomer's cheap call
   * waited 15 s for a thread to load (1 s with all eight up; bench:rpc-isolation). Decision 0030.
   */
  warm: number;
  /** An idle thread beyond `warm` is stopped after this long (default 60 s). */
  idleMs: number;
  /**
   * Jobs that may run at once while each is in its first 20 ms (default the cores); a job past that, or
   * of a client whose last job was long, does not count. Cheap calls spread over many threads cost twice the CPU
   * each (every thread's isolate compiles and collects on its own, and the threads contend for the cores): at 4 x 4
   * cheap eth_calls, 1.35 ms of CPU a call with 4 threads busy, 0.63 ms with 1 (decision 0030). Long work still
   * starts at once on a spare thread: it stops counting 20 ms in.
   */
  youngJobsAtOnce: number;
  /**
   * Jobs one client may have running at once (`--rpc.workers.per-client`, default 1): with W threads, W clients
   * can saturate the pool but no fewer, and a client's parallel calls queue behind each other (cheap ones take ms).
   */
  perClientRunning: number;
  /** Jobs one client may have waiting (default 16); past it the client's next call is refused with -32005. */
  perClientQueued: number;
  /** Jobs waiting in all (default 16 per worker); past it every new call is refused with -32005. */
  maxQueued: number;
  /** How long a worker may run past a job's deadline before it is terminated and replaced (default 250 ms). */
  graceMs: number;
  /** Nice value of the worker threads (default 10): they yield the CPU to the main loop and the chain thread. */
  nice: number;
  /** V8 old-space cap of each worker in MB (default 512): a runaway job ends its worker, not the node. */
  maxHeapMb: number;
}

/** Most `--rpc.workers`: each worker holds a V8 isolate and a SQLite connection (tens of MB). */
export const MAX_RPC_WORKERS = 64;

/**
 * Default most threads: 8, or twice the cores on bigger hosts (docs/decisions/0030-rpc-execution-pool.md). The
 * workers run at nice 10, so however many are busy the main loop and the chain thread keep their core: the kernel
 * gives a nice-0 thread about nine times a nice-10 thread's share. More threads than cores let a cheap call start at
 * once beside long ones (the kernel time-slices them) instead of waiting for one to end; each costs about 20 MB.
 */
export function defaultRpcWorkers(cores: number = availableParallelism()): number {
  return Math.min(MAX_RPC_WORKERS, Math.max(8, 2 * cores));
}

/** Defaults for `workers` threads. */
export function defaultRpcPoolOptions(workers: number = defaultRpcWorkers()): RpcPoolOptions {
  return {
    workers,
    warm: Math.min(2, workers),
    idleMs: 60_000,
    youngJobsAtOnce: Math.min(MAX_RPC_WORKERS, availableParallelism()),
    perClientRunning: 1,
    perClientQueued: 16,
    maxQueued: 16 * workers,
    graceMs: 250,
    nice: 10,
    maxHeapMb: 512,
  };
}

/** Defaults overlaid with `partial`, every field checked; throws a RangeError naming the field and its range. */
export function resolveRpcPoolOptions(partial: Partial<RpcPoolOptions> = {}): RpcPoolOptions {
  const workers = partial.workers ?? defaultRpcWorkers();
  checkInt('workers', workers, 1, MAX_RPC_WORKERS);
  const out = { ...defaultRpcPoolOptions(workers) };
  for (const [key, value] of Object.entries(partial) as [keyof RpcPoolOptions, number | undefined][]) {
    if (value !== undefined) out[key] = value;
  }
  checkInt('warm', out.warm, 0, out.workers);
  checkInt('idleMs', out.idleMs, 1_000, 86_400_000);
  checkInt('youngJobsAtOnce', out.youngJobsAtOnce, 1, MAX_RPC_WORKERS);
  checkInt('perClientRunning', out.perClientRunning, 1, out.workers);
  checkInt('perClientQueued', out.perClientQueued, 0, 100_000);
  checkInt('maxQueued', out.maxQueued, 0, 1_000_000);
  checkInt('graceMs', out.graceMs, 10, 60_000);
  checkInt('nice', out.nice, 0, 19);
  checkInt('maxHeapMb', out.maxHeapMb, 64, 16_384);
  return out;
}

function checkInt(name: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`rpc pool ${name} must be an integer ${min}..${max}, got ${v}`);
}
