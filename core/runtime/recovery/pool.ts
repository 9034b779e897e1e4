/**
 * The sender recovery pool: worker threads that recover big batches off the calling thread (seeds: "a batch under 64
 * signatures runs in the calling process"). A batch is split into one chunk per worker; each chunk travels as one
 * transferred ArrayBuffer both ways. A worker that dies mid-chunk costs nothing but time: its chunks are recovered
 * in the calling thread and the pool carries on with the others.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../log/types.ts';
import type { Gauge, Histogram } from '../../metrics/types.ts';
import { chooseSecp256k1, type Secp256k1Backend } from '../../primitives/secp256k1/index.ts';
import { SMALL_THREAD_LIMITS, spawnTsWorker, waitForReady } from '../spawnTsWorker.ts';
import { invalidSignature, InThreadSenderRecovery } from './inThread.ts';
import { DEFAULT_INLINE_BELOW, defaultRecoveryWorkers, type RecoveryPoolOptions } from './options.ts';
import { checkItems, packItems, recoverPacked, unpackAddresses } from './packed.ts';
import type { RecoveryRequest, RecoveryResponse, RecoveryWorkerData } from './protocol.ts';
import { SenderRecoveryError, type RecoveryItem, type SenderRecovery } from './types.ts';

export interface RecoveryPoolDeps {
  logger?: Logger;
  metrics?: { recoveryQueueLength: Gauge; recoverySeconds: Histogram };
}

interface Job {
  /** The caller's items, kept (not copied) for the fallback path: the packed buffer is transferred away. */
  items: readonly RecoveryItem[];
  count: number;
  resolve: (r: RecoveryResponse) => void;
}

interface Slot {
  worker: Worker;
  inFlight: Map<number, Job>;
  items: number;
  /** Chunks the worker is still working on, answered or not (close() lets it finish them before it terminates it). */
  owed: number;
  /** Called when `owed` falls to 0. */
  onIdle?: () => void;
}

/** Longest wait of close() for a worker to finish its chunk (one chunk takes tens of ms on a quiet host). */
const CLOSE_WAIT_MS = 5_000;

/** A pool of recovery workers; call `init()` before `recover()` and `close()` at shutdown. */
export class RecoveryPool implements SenderRecovery {
  readonly size: number;
  private readonly inlineBelow: number;
  private readonly backendPreference: string | undefined;
  private readonly inThread: InThreadSenderRecovery;
  private readonly fallbackBackend: Secp256k1Backend;
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private readonly onDemand: boolean;
  private readonly idleStopMs: number;
  private readonly keepAfterInit: boolean;
  private starting: Promise<void> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    {
      workers = defaultRecoveryWorkers(),
      inlineBelow = DEFAULT_INLINE_BELOW,
      backend,
      onDemand = false,
      idleStopMs = 30_000,
      keepAfterInit = false,
    }: RecoveryPoolOptions = {},
    private readonly deps: RecoveryPoolDeps = {},
  ) {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`recovery workers must be an integer >= 1, got ${workers}`);
    this.size = workers;
    this.inlineBelow = inlineBelow;
    this.backendPreference = backend;
    this.fallbackBackend = chooseSecp256k1(backend);
    this.inThread = new InThreadSenderRecovery(this.fallbackBackend, deps.metrics);
    this.onDemand = onDemand;
    this.idleStopMs = idleStopMs;
    this.keepAfterInit = keepAfterInit;
  }

  /**
   * Starts the workers and waits until each has recovered its warm-up signature. On demand (`onDemand`), this
   * checks that a worker starts, and stops it again (the first big batch starts them), or with `keepAfterInit` leaves
   * them up until `idleStopMs` passes without a batch.
   */
  async init(): Promise<void> {
    await this.start();
    if (!this.onDemand) return;
    if (this.keepAfterInit) this.armIdleStop();
    else this.stopWorkers();
  }

  private async start(): Promise<void> {
    const data: RecoveryWorkerData = { backend: this.backendPreference };
    const workers = Array.from({ length: this.size }, (_, i) =>
      spawnTsWorker(new URL('./worker.ts', import.meta.url), data, { name: `xone-recovery-${i}`, resourceLimits: SMALL_THREAD_LIMITS }),
    );
    try {
      await Promise.all(workers.map((w) => waitForReady(w)));
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw new SenderRecoveryError('RECOVERY_WORKER_FAILED', `recovery worker failed to start: ${(err as Error).message}`);
    }
    if (this.closed) {
      await Promise.all(workers.map((w) => w.terminate()));
      return;
    }
    for (const worker of workers) {
      const slot: Slot = { worker, inFlight: new Map(), items: 0, owed: 0 };
      worker.on('message', (res: RecoveryResponse) => {
        if (--slot.owed === 0) slot.onIdle?.();
        this.settle(slot, res);
      });
      worker.on('error', (err) => this.retire(slot, err.message));
      worker.on('exit', (code) => this.retire(slot, `exited with code ${code}`));
      worker.unref();
      this.slots.push(slot);
    }
  }

  /** Workers still alive. */
  liveWorkers(): number {
    return this.slots.length;
  }

  async recover(items: readonly RecoveryItem[]): Promise<Uint8Array[]> {
    if (this.closed) throw new SenderRecoveryError('RECOVERY_CLOSED', 'sender recovery pool is closed');
    if (items.length >= this.inlineBelow && this.slots.length === 0 && this.onDemand) {
      this.startInBackground();
      if (this.starting !== undefined) return this.recoverWhileStarting(items);
    }
    return this.recoverNow(items);
  }

  /**
   * While the workers start: recovers here one chunk per turn of the event loop and hands the rest to the workers
   * as soon as they are up. The turns let the workers' ready messages in (a caller whose loop awaits only promises
   * that settle in this thread, the chain thread's batch import, would otherwise never see them), and the hand-off
   * keeps a big first batch (a follower's 128 blocks of 1,428 transfers) from being recovered here whole: before it,
   * the chain thread spent 15 % of a quick bench:follow run recovering the first blocks.
   */
  private async recoverWhileStarting(items: readonly RecoveryItem[]): Promise<Uint8Array[]> {
    checkItems(items);
    const out: Uint8Array[] = [];
    let failed: SenderRecoveryError | undefined;
    const offset = (err: unknown, base: number): SenderRecoveryError => {
      if (!(err instanceof SenderRecoveryError) || err.code !== 'RECOVERY_INVALID_SIGNATURE') throw err;
      return invalidSignature(base + Number(err.meta.index), String(err.meta.cause));
    };
    for (let done = 0; done < items.length;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const rest = items.length - done;
      const pooled = this.slots.length > 0 && rest >= this.inlineBelow;
      const chunk = items.slice(done, pooled ? items.length : done + this.inlineBelow);
      try {
        out.push(...(pooled ? await this.recoverNow(chunk) : this.inThread.recoverSync(chunk)));
      } catch (err) {
        failed ??= offset(err, done);
        out.push(...chunk.map(() => new Uint8Array(20)));
      }
      done += chunk.length;
    }
    if (failed) throw failed;
    return out;
  }

  private async recoverNow(items: readonly RecoveryItem[]): Promise<Uint8Array[]> {
    if (items.length < this.inlineBelow || this.slots.length === 0) return this.inThread.recoverSync(items);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    checkItems(items);
    const stop = this.deps.metrics?.recoverySeconds.startTimer();
    const chunkSize = Math.ceil(items.length / this.slots.length);
    const chunks: Promise<RecoveryResponse>[] = [];
    for (let start = 0; start < items.length; start += chunkSize) chunks.push(this.dispatch(items.slice(start, start + chunkSize)));
    const results = await Promise.all(chunks);
    stop?.();
    this.armIdleStop();
    const out: Uint8Array[] = [];
    for (let c = 0; c < results.length; c++) {
      const { addresses, failedIndex, failure } = results[c];
      if (failedIndex >= 0) throw invalidSignature(c * chunkSize + failedIndex, failure ?? 'no public key');
      out.push(...unpackAddresses(addresses));
    }
    return out;
  }

  /** Stops the workers; later `recover()` calls reject with RECOVERY_CLOSED. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    await this.starting?.catch(() => {});
    const slots = this.slots;
    this.slots = [];
    for (const slot of slots) this.runInline(slot); // answer callers still waiting, then stop
    // A worker terminated inside the native secp256k1 call aborts the whole process ('terminate called after throwing
    // an instance of Napi::Error'): each one finishes the chunk it is on first (one chunk: a fraction of a block).
    await Promise.all(slots.map((s) => this.finished(s)));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Resolves once `slot`'s worker owes no chunk, has exited, or after CLOSE_WAIT_MS (a worker that never answers). */
  private finished(slot: Slot): Promise<void> {
    if (slot.owed === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      slot.onIdle = done;
      slot.worker.once('exit', done);
    });
  }

  /** On demand: starts the workers without waiting; batches run in the calling thread until they are ready. */
  private startInBackground(): void {
    if (this.starting !== undefined || this.closed) return;
    this.starting = this.start()
      .catch((err: Error) =>
        this.deps.logger?.error('recovery workers failed to start; recovering in the calling thread', { why: err.message }),
      )
      .finally(() => (this.starting = undefined));
  }

  /** After a pooled batch, on demand: the workers stop once no batch came for `idleStopMs`. */
  private armIdleStop(): void {
    if (!this.onDemand || this.closed) return;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.slots.every((s) => s.inFlight.size === 0)) this.stopWorkers();
    }, this.idleStopMs);
    this.idleTimer.unref();
  }

  /** Stops idle workers on purpose (their exit is not a failure). */
  private stopWorkers(): void {
    const slots = this.slots;
    this.slots = [];
    for (const slot of slots) {
      slot.worker.removeAllListeners('exit');
      slot.worker.removeAllListeners('error');
      void slot.worker.terminate();
    }
  }

  private dispatch(items: readonly RecoveryItem[]): Promise<RecoveryResponse> {
    const packed = packItems(items);
    const slot = this.slots.reduce((a, b) => (b.items < a.items ? b : a));
    return new Promise((resolve) => {
      const id = this.nextId++;
      const job: Job = { items, count: items.length, resolve };
      // A worker holds the process open only while it owes an answer: an idle pool never keeps a process alive.
      if (slot.inFlight.size === 0) slot.worker.ref();
      slot.owed++;
      slot.inFlight.set(id, job);
      slot.items += job.count;
      this.deps.metrics?.recoveryQueueLength.inc(job.count);
      const req: RecoveryRequest = { id, packed };
      slot.worker.postMessage(req, [packed]);
    });
  }

  private settle(slot: Slot, res: RecoveryResponse): void {
    const job = slot.inFlight.get(res.id);
    if (!job) return;
    slot.inFlight.delete(res.id);
    if (slot.inFlight.size === 0) slot.worker.unref();
    slot.items -= job.count;
    this.deps.metrics?.recoveryQueueLength.dec(job.count);
    job.resolve(res);
  }

  /** A worker died: drop it and recover its chunks here, so no caller loses its answer. */
  private retire(slot: Slot, why: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    this.deps.logger?.error('recovery worker died; its chunks run in the calling thread', {
      why,
      chunks: slot.inFlight.size,
      live: this.slots.length,
    });
    this.runInline(slot);
  }

  private runInline(slot: Slot): void {
    for (const [id, job] of [...slot.inFlight]) this.settle(slot, { id, ...recoverPacked(packItems(job.items), this.fallbackBackend) });
  }
}
