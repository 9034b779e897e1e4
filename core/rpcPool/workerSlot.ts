/**
 * One thread of the execution pool: the worker, its shared control block (the interrupt flag) and the job it runs.
 * The pool decides what runs where; a slot only starts, talks to and stops its worker.
 */
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { closeNativeCalls } from '../primitives/nativeCalls.ts';
import { spawnTsWorker, waitForReady } from '../runtime/spawnTsWorker.ts';
import { compact } from './compact.ts';
import type { RpcPoolOptions } from './options.ts';
import { threadCpuNs } from './threadCpu.ts';
import {
  CONTROL_INTERRUPT,
  CONTROL_NATIVE,
  CONTROL_NEXT,
  CONTROL_SLOTS,
  type JobReply,
  type JobRequest,
  type RpcWorkerData,
} from './types.ts';

/** How often a terminate waiting for the thread's native call to end looks again (such calls take ms). */
const NATIVE_POLL_MS = 2;

/** What the slot's owner hears from it. */
export interface SlotEvents<J> {
  reply(slot: WorkerSlot<J>, reply: JobReply): void;
  /** The worker died (crash, out of memory, exit) after `ready` or while starting. */
  gone(slot: WorkerSlot<J>, why: string): void;
}

export class WorkerSlot<J = unknown> {
  readonly worker: Worker;
  private readonly control: Int32Array;
  /** Resolves once the worker has opened its store; rejects if it could not. */
  readonly ready: Promise<void>;
  isReady = false;
  /** The job running here, if any. */
  job: J | undefined;
  /** The job sent ahead (postAhead): it waits in the worker's port and starts as soon as `job` ends. */
  next: J | undefined;
  /** Id of a job sent ahead and taken back, until the worker says it dropped it: nothing is sent ahead meanwhile. */
  takenBack: number | undefined;
  /** performance.now() of the current job's start, or of the moment the slot went idle. */
  since = performance.now();
  /** Overrun timer of the running job. */
  timer: NodeJS.Timeout | undefined;
  /** Timer that lowers the thread's priority once the running job has run DEMOTE_AFTER_MS. */
  demoteTimer: NodeJS.Timeout | undefined;
  /** The thread's kernel id (Linux), from its ready message: its priority can then move per job. */
  private tid: number | undefined;
  /** The thread runs at the pool's `nice` now; `pinnedLow`: it cannot come back (no privilege to raise priority). */
  private lowered = false;
  private pinnedLow = false;
  private dead = false;
  /** The thread is gone: its native-call cell is no longer anyone's to wait for. */
  private exited = false;

  constructor(
    readonly id: number,
    data: Omit<RpcWorkerData, 'control' | 'name' | 'nice'>,
    options: Pick<RpcPoolOptions, 'nice' | 'maxHeapMb'>,
    events: SlotEvents<J>,
  ) {
    const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
    this.control = new Int32Array(control);
    const workerData: RpcWorkerData = { ...data, control, nice: options.nice, name: `rpc-${id}` };
    this.worker = spawnTsWorker(new URL('./worker.ts', import.meta.url), workerData, {
      name: `xone-rpc-${id}`,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
    this.worker.unref();
    this.ready = waitForReady(this.worker, 60_000);
    this.ready.then(
      () => (this.isReady = true),
      () => undefined,
    );
    this.worker.on('message', (msg: JobReply | { type: 'ready'; tid?: number }) => {
      if ('type' in msg) this.tid = msg.tid;
      else if (!this.dead) events.reply(this, msg);
    });
    const gone = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      events.gone(this, why);
    };
    this.worker.on('error', (err) => gone(err.message));
    this.worker.on('exit', (code) => {
      this.exited = true;
      gone(`exited with code ${code}`);
    });
  }

  /** CPU ms this thread has run in all, or undefined where the kernel does not say (the pool then goes by wall time). */
  cpuMs(): number | undefined {
    const ns = this.tid === undefined ? undefined : threadCpuNs(this.tid);
    return ns === undefined ? undefined : ns / 1e6;
  }

  /** A long job: the thread yields the CPU to the main loop, the chain thread and other jobs (nice `nice`). */
  lower(nice: number): void {
    if (this.tid === undefined || this.lowered || nice <= 0) return;
    try {
      setPriority(this.tid, nice);
      this.lowered = true;
    } catch {
      // The thread keeps its priority.
    }
  }

  /** The job ended: back to the process's priority `base`, where the kernel allows it (raising needs privilege). */
  restore(base: number): void {
    if (this.tid === undefined || !this.lowered || this.pinnedLow) return;
    try {
      setPriority(this.tid, base);
      this.lowered = false;
    } catch {
      // Unprivileged: this thread stays low for good, as every pool thread did before per-job priorities.
      this.pinnedLow = true;
    }
  }

  /**
   * Sends a job (throws if its params cannot be cloned). Its byte fields are mostly views into Node's 8 KiB Buffer
   * pool (hexToBytes of the request's JSON), which the clone would copy whole, each of them: compacted first.
   */
  post(request: JobRequest): void {
    this.worker.postMessage(compact(request));
  }

  /**
   * Sends a job ahead, to wait behind the running one (the worker then starts it without a wake-up and without
   * waiting for the main thread); it can be taken back until the worker starts it (takeBack).
   */
  postAhead(request: JobRequest): void {
    Atomics.store(this.control, CONTROL_NEXT, request.id);
    try {
      this.post(request);
    } catch (err) {
      Atomics.store(this.control, CONTROL_NEXT, 0);
      throw err;
    }
  }

  /** Takes back the job `id` sent ahead: true if the worker had not started it (it will drop it unrun). */
  takeBack(id: number): boolean {
    return Atomics.compareExchange(this.control, CONTROL_NEXT, id, -id) === id;
  }

  /** Asks the running job `id` to stop (read by the worker between EVM steps and rows). */
  interrupt(id: number): void {
    Atomics.store(this.control, CONTROL_INTERRUPT, id);
  }

  /**
   * Stops the worker without telling the owner (it already knows); the ready wait settles on the exit. Never while
   * the thread is inside a native addon call (that aborts the process): the call ends first, and none starts after.
   */
  async terminate(): Promise<void> {
    this.dead = true;
    clearTimeout(this.timer);
    clearTimeout(this.demoteTimer);
    while (!this.exited && !closeNativeCalls(this.control, CONTROL_NATIVE)) await sleep(NATIVE_POLL_MS);
    await this.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }
}
