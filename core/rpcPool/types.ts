/**
 * The RPC execution pool's data and API: what crosses between the main thread and a worker (structured-clonable:
 * bytes, bigints, plain objects) and the executor interface both implementations share (the worker pool in
 * index.ts, the in-thread executor in inThread.ts for tests and tools).
 */
import type { ChainConfig } from '../chain/forks.ts';
import type { ReaderFaults } from '../store/index.ts';
import type { JobKind, JobParams, JobResult } from './jobs.ts';

export type { JobKind, JobParams, JobResult } from './jobs.ts';

/** Who asks, until when, and what to answer when the job overruns its budget. */
export interface JobScope {
  /** Fairness key: the client IP, or the client a trusted gateway named. */
  client: string;
  /** The request's deadline, epoch ms: past it the job is cancelled and the caller gets -32002. */
  deadline: number;
  /** Fires when the client goes away (or at the deadline): queued work is dropped, running work interrupted. */
  signal?: AbortSignal;
  /** Execution budget from the job's start (--rpc.evmtimeout for EVM jobs); default: until the deadline. */
  budgetMs?: number;
  /** The error for a job the worker did not stop at its budget (e.g. geth's "execution aborted (timeout = 5s)"). */
  budgetError?: () => Error;
}

/** Runs jobs of the table in core/rpcPool/jobs.ts. */
export interface RpcExecutor {
  run<K extends JobKind>(kind: K, params: JobParams<K>, scope: JobScope): Promise<JobResult<K>>;
  close(): Promise<void>;
}

/** What each worker is started with. */
export interface RpcWorkerData {
  datadir: string;
  config: ChainConfig;
  /** Int32 slots shared with the main thread: [0] = id of the job to interrupt. */
  control: SharedArrayBuffer;
  /** Read deadline of the worker's store handle (ms). */
  readDeadlineMs: number;
  /** Test seams of the worker's store handle. */
  faults?: ReaderFaults;
  /** Test seam: exit with code 1 before saying ready. */
  failStart?: boolean;
  /**
   * Warm the tracing and eth_simulateV1 code after ready, while idle (warmUp.ts): the threads the pool keeps up,
   * which take most of the work (the first idle thread in the pool's list gets each job).
   */
  warmTracing?: boolean;
  /** Nice value the thread takes once it has loaded and warmed up (it loads at the process's priority). */
  nice: number;
  name: string;
}

/** Main thread → worker: run one job. */
export interface JobRequest {
  id: number;
  kind: JobKind;
  params: unknown;
  budgetMs: number;
}

/** An error as it crosses the thread boundary (XoneError.toObject()); `name` RpcError keeps its wire row. */
export interface SerializedError {
  name: string;
  code: string;
  message: string;
  meta: Record<string, unknown>;
}

/**
 * Worker → main thread: a job's outcome, and how long it ran in the worker; `skipped`: a job sent ahead that the main
 * thread took back before it started (CONTROL_NEXT), dropped unrun.
 */
export type JobReply =
  | { id: number; ok: true; value: unknown; ms: number }
  | { id: number; ok: false; error: SerializedError; ms: number }
  | { id: number; skipped: true };

/** Slot of the control block holding the id of the job the main thread wants stopped. */
export const CONTROL_INTERRUPT = 0;
/** The worker's native-call cell (core/primitives/nativeCalls.ts): the pool terminates it only once claimed. */
export const CONTROL_NATIVE = 1;
/**
 * The job sent ahead to a busy worker (it waits in the worker's port behind the running one): its id while unclaimed.
 * The worker claims it as it starts it (id -> 0); the main thread takes it back before that (id -> -id), and the
 * worker then drops it (a `skipped` reply). Both sides move the cell by compare-exchange only.
 */
export const CONTROL_NEXT = 2;
export const CONTROL_SLOTS = 3;
