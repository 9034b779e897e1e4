/**
 * One thread of the execution pool: the worker, its shared control block (the interrupt flag) and the job it runs.
 * The pool decides what runs where; a slot only starts, talks to and stops its worker.
 */
import type { Worker } from 'node:worker_threads';
import { spawnTsWorker, waitForReady } from '../runtime/spawnTsWorker.ts';
import type { RpcPoolOptions } from './options.ts';
import { CONTROL_INTERRUPT, CONTROL_SLOTS, type JobReply, type JobRequest, type RpcWorkerData } from './types.ts';

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
  /** performance.now() of the current job's start, or of the moment the slot went idle. */
  since = performance.now();
  /** Overrun timer of the running job. */
  timer: NodeJS.Timeout | undefined;
  private dead = false;

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
    this.worker.on('message', (msg: JobReply | { type: 'ready' }) => {
      if (!this.dead && !('type' in msg)) events.reply(this, msg);
    });
    const gone = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      events.gone(this, why);
    };
    this.worker.on('error', (err) => gone(err.message));
    this.worker.on('exit', (code) => gone(`exited with code ${code}`));
  }

  /** Sends a job (throws if its params cannot be cloned). */
  post(request: JobRequest): void {
    this.worker.postMessage(request);
  }

  /** Asks the running job `id` to stop (read by the worker between EVM steps and rows). */
  interrupt(id: number): void {
    Atomics.store(this.control, CONTROL_INTERRUPT, id);
  }

  /** Stops the worker without telling the owner (it already knows); the ready wait settles on the exit. */
  terminate(): Promise<void> {
    this.dead = true;
    clearTimeout(this.timer);
    return this.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }
}
