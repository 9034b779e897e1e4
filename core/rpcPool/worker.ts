/**
 * Entry of one RPC execution pool worker: opens its own read-only store connection, warms up (warmUp.ts), says
 * ready, then runs one job at a time, each inside one read transaction (one WAL snapshot), and posts its outcome. A job stops when the main thread
 * raises the interrupt flag in shared memory (a message could not reach a worker busy in synchronous EVM code) or its
 * budget ends; if it does not, the main thread terminates this worker and starts another.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ethereumHeaderCodec } from '../chain/header/index.ts';
import { guardNativeCalls } from '../primitives/nativeCalls.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { EvmHostPool } from '../exec/evmHostPool.ts';
import { startHeapDiag } from '../runtime/heapDiag.ts';
import { tsWorkerData } from '../runtime/spawnTsWorker.ts';
import { openReadOnly } from '../store/index.ts';
import { StoreChainView, type ChainHead } from '../rpcBackend/chainView.ts';
import { StoreExecutionView } from '../rpcBackend/execView.ts';
import { StoreSimulateView } from '../rpcBackend/simulateView.ts';
import { StoreStateView } from '../rpcBackend/stateView.ts';
import { StoreTraceView } from '../rpcBackend/traceView.ts';
import type { ChainReader } from '../store/index.ts';
import { compact } from './compact.ts';
import { serializeError } from './errors.ts';
import { POOL_JOBS, type JobContext } from './jobs.ts';
import { tracingWarmUp, warmUpCall } from './warmUp.ts';
import { CONTROL_INTERRUPT, CONTROL_NATIVE, CONTROL_NEXT, type JobReply, type JobRequest, type RpcWorkerData } from './types.ts';

/** The head as the job's snapshot has it (a worker has no in-memory head; the jobs name their blocks anyway). */
function storedHead(reader: ChainReader): ChainHead {
  const head = reader.getHead();
  const row = head && reader.getHeaderByHash(head.hash);
  if (!row) throw new Error('the store has no head block');
  return { header: ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp), hash: row.hash };
}

/**
 * A large answer that owns its whole buffer (eth_getLogs' encoded JSON) is moved to the main thread, not copied: the
 * copy would be made on both threads, the main thread's on its loop.
 */
function transferable(reply: JobReply): ArrayBuffer[] {
  const v = 'value' in reply ? reply.value : undefined;
  return v instanceof Uint8Array &&
    v.byteLength >= 64 * 1024 &&
    v.byteOffset === 0 &&
    v.byteLength === v.buffer.byteLength &&
    v.buffer instanceof ArrayBuffer
    ? [v.buffer]
    : [];
}

/** This thread's kernel id (Linux: /proc/thread-self is PID/task/TID), or undefined where there is none. */
function kernelThreadId(): number | undefined {
  try {
    const m = /task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Sets this thread's nice value (a no-op where not allowed or not supported). */
function lowerPriority(nice: number): void {
  if (nice <= 0) return;
  try {
    setPriority(nice);
  } catch {
    // The thread keeps the process's priority.
  }
}

const port = parentPort;
if (!port) throw new Error('rpc pool worker must run in a worker thread');
const data = tsWorkerData<RpcWorkerData>();
startHeapDiag(data.name);

// A start that fails without an error (RpcWorkerData.failStart): what the pool must retry once and then explain.
if (data.failStart) process.exit(1);

try {
  const reader = openReadOnly(data.datadir, { readDeadlineMs: data.readDeadlineMs, ...(data.faults ? { faults: data.faults } : {}) });
  const control = new Int32Array(data.control);
  // The pool may terminate this thread (a job past its deadline and grace, close): never inside a native addon call.
  guardNativeCalls(control, CONTROL_NATIVE);
  let current = 0;
  const interrupt = {
    get aborted(): boolean {
      return Atomics.load(control, CONTROL_INTERRUPT) === current;
    },
  };
  const chainView = new StoreChainView(reader, data.config, () => storedHead(reader));
  // One EVM per chain and fork for this thread's calls, traces and simulations, lent to one job at a time (the warm-up
  // builds the first).
  const hosts = new EvmHostPool();
  const ctx: JobContext = {
    reader,
    config: data.config,
    interrupt,
    budgetMs: 0,
    views: {
      exec: (timeoutMs) => new StoreExecutionView(reader, data.config, { timeoutMs, hosts }),
      chain: chainView,
      state: new StoreStateView(reader),
      trace: (options) => new StoreTraceView(reader, chainView, data.config, { ...options, hosts }),
      simulate: (options) => new StoreSimulateView(reader, data.config, { ...options, hosts }),
    },
  };
  const runJob = async (req: JobRequest): Promise<Extract<JobReply, { ms: number }>> => {
    const started = performance.now();
    current = req.id;
    ctx.budgetMs = req.budgetMs;
    try {
      const job = POOL_JOBS[req.kind] as (params: unknown, ctx: JobContext) => unknown;
      const value = await reader.readSnapshot(() => job(req.params, ctx));
      // Return data and the like can be views into the EVM's buffers, which a clone would copy whole.
      return { id: req.id, ok: true, value: compact(value), ms: performance.now() - started };
    } catch (err) {
      return { id: req.id, ok: false, error: serializeError(err), ms: performance.now() - started };
    } finally {
      current = 0;
    }
  };

  /** Runs a job the pool sent and posts its answer (a job sent ahead and taken back is dropped unrun). */
  const answer = async (req: JobRequest): Promise<void> => {
    // Claim the job if it was sent ahead; if the pool took it back meanwhile, drop it unrun.
    if (Atomics.compareExchange(control, CONTROL_NEXT, -req.id, 0) === -req.id) {
      port.postMessage({ id: req.id, skipped: true } satisfies JobReply);
      return;
    }
    Atomics.compareExchange(control, CONTROL_NEXT, req.id, 0);
    const reply = await runJob(req);
    try {
      port.postMessage(reply, transferable(reply));
    } catch (err) {
      // A value that cannot be cloned is a bug in the job: answer it as an internal error, not a hung request.
      port.postMessage({ id: req.id, ok: false, error: serializeError(err), ms: reply.ms } satisfies JobReply);
    }
  };

  // Jobs run one at a time, in the order sent: the pool may send one ahead while another runs (it then finds it
  // here on finishing, with no wake-up), and may take that one back until it starts (CONTROL_NEXT).
  let chain: Promise<void> = Promise.resolve();
  // Jobs and warm-up steps queued on `chain` and not yet done: a warm-up step is queued only when there are none, so
  // a job waits behind at most one step.
  let inFlight = 0;
  let warmSteps: (() => Promise<boolean>)[] = [];
  const warmWhenIdle = (): void => {
    const step = warmSteps.shift();
    if (inFlight > 0 || step === undefined) {
      if (step) warmSteps.unshift(step);
      return;
    }
    inFlight++;
    chain = chain.then(async () => {
      if (!(await step())) warmSteps = [];
      inFlight--;
      // A job that came in meanwhile runs first: the next step follows its answer.
      setImmediate(warmWhenIdle);
    });
  };
  port.on('message', (req: JobRequest) => {
    inFlight++;
    chain = chain.then(async () => {
      try {
        await answer(req);
      } finally {
        inFlight--;
        if (inFlight === 0 && warmSteps.length > 0) setImmediate(warmWhenIdle);
      }
    });
  });
  await warmUpCall(ctx);
  // Loading and warming up ran at the process's priority, so a thread started under load is ready in well under a
  // second. Linux keeps nice per thread: with this thread's id the pool lowers it only while a job runs long (a
  // cheap call keeps the process's priority, as it would on the main loop); without one it stays low throughout.
  const tid = kernelThreadId();
  if (tid === undefined) lowerPriority(data.nice);
  port.postMessage({ type: 'ready', ...(tid !== undefined ? { tid } : {}) });
  if (data.warmTracing) {
    // Long work nobody waits for: the pool lowers this thread for it until the first job (index.ts spawn).
    warmSteps = tracingWarmUp(ctx);
    setImmediate(warmWhenIdle);
  }
} catch (err) {
  port.postMessage({ type: 'ready', error: (err as Error).message });
}
