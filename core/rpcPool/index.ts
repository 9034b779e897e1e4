/**
 * The RPC execution pool (docs/architecture.md, "RPC execution pool"): worker threads that run every state read that
 * can take time (eth_call, eth_estimateGas, eth_createAccessList, eth_getLogs, eth_getProof, debug_trace*,
 * eth_simulateV1: the job table in jobs.ts), so the main loop only parses, routes and answers.
 *
 * - Each worker has its own read-only SQLite connection and runs one job at a time inside one read transaction:
 *   every job sees one consistent WAL snapshot and never waits behind the chain thread's writer.
 * - Workers run at a lower CPU priority (nice 10 by default) so a saturated pool leaves the main loop and the
 *   chain thread their CPU. Threads start on demand up to `workers` (more than cores by default) and one idle spare
 *   is kept ready, so a cheap call starts at once beside long ones instead of waiting for them to end; idle threads
 *   beyond `warm` stop after `idleMs` (docs/decisions/0030-rpc-execution-pool.md).
 * - Fairness: per client (IP, or the client a trusted gateway names) a cap on running jobs (1 by default) and on
 *   waiting ones, and a bound on the whole queue; the next job comes from the client with the fewest running; a job
 *   that cannot wait is refused at once with -32005 and a Retry-After.
 * - Deadlines: a job is interrupted (shared-memory flag, checked by the EVM and between rows) when its request's
 *   deadline passes, its client goes away or its budget ends; a worker that does not stop within `graceMs` is
 *   terminated and replaced, and its caller gets the timeout error at once.
 *
 * Any job that is a function of (request, store snapshot, deadline) belongs here: add it to jobs.ts and call
 * `run(kind, params, scope)`. The in-thread executor (inThread.ts, imported on its own: it loads the EVM) runs the
 * same table on the calling thread.
 */
import { getPriority } from 'node:os';
import type { ChainConfig } from '../chain/forks.ts';
import type { Logger } from '../log/types.ts';
import type { Counter, Gauge, Histogram } from '../metrics/types.ts';
import { defaultStoreOptions, type ReaderFaults } from '../store/index.ts';
import { deserializeError, RpcPoolError } from './errors.ts';
import { FairQueue, type Refusal } from './fairQueue.ts';
import { resolveRpcPoolOptions, type RpcPoolOptions } from './options.ts';
import type { JobKind, JobParams, JobReply, JobResult, JobScope, RpcExecutor } from './types.ts';
import { WorkerSlot } from './workerSlot.ts';

/**
 * A job still running after this many ms of wall time that then uses as many ms of CPU is long work, and its thread
 * is lowered to `nice` (cheap calls never are). CPU time, not only wall time: on a busy host a cheap call waits for
 * the CPU far longer than it runs (threadCpu.ts, decision 0030).
 */
const DEMOTE_AFTER_MS = 20;
/** Shortest wait between two looks at a running job's CPU time (each is one /proc read on the main thread). */
const DEMOTE_RECHECK_MS = 10;
/**
 * A client whose job was lowered has its next jobs start lowered, for this long or until one of them uses less than
 * DEMOTE_AFTER_MS of CPU: an attacker's next endless call is woken at nice 10, so it never takes the CPU from the
 * main loop for its first 20 ms (the woken thread preempted the loop on every attacker request).
 */
const LONG_CLIENT_MS = 60_000;
/** Most clients remembered as running long work (the oldest are forgotten first). */
const LONG_CLIENTS_MAX = 4_096;
/** The process's nice value, which a thread returns to after a long job. */
const BASE_NICE = ((): number => {
  try {
    return getPriority();
  } catch {
    return 0;
  }
})();

export { RpcPoolError, type RpcPoolErrorCode } from './errors.ts';
export { defaultRpcPoolOptions, defaultRpcWorkers, MAX_RPC_WORKERS, resolveRpcPoolOptions, type RpcPoolOptions } from './options.ts';
export type { JobKind, JobParams, JobResult, JobScope, RpcExecutor } from './types.ts';
export { pooledExecutionView, pooledLogs, pooledProofs, pooledSimulateView, pooledTraceView } from './views.ts';

/** The metrics the pool keeps (docs/metrics.md). */
export interface RpcPoolMetrics {
  rpcPoolQueued: Gauge;
  rpcPoolBusy: Gauge;
  rpcPoolReady: Gauge;
  rpcPoolJobs: Counter;
  rpcPoolRefused: Counter;
  rpcPoolInterrupted: Counter;
  rpcPoolWorkerRestarts: Counter;
  rpcPoolJobSeconds: Histogram;
  rpcPoolWaitSeconds: Histogram;
}

export interface RpcPoolDeps {
  logger?: Logger;
  metrics?: RpcPoolMetrics;
}

export interface RpcPoolSetup {
  datadir: string;
  config: ChainConfig;
  /** Read deadline of each worker's store handle (default the store's). */
  readDeadlineMs?: number;
  /** Test seams of each worker's store handle (NodeOptions.faults: the node's readers all get them). */
  faults?: ReaderFaults;
  /** Test seam: the first this many threads exit with code 1 while starting (a fault, as seen once at load ~35). */
  failedStarts?: number;
}

interface Job {
  id: number;
  kind: JobKind;
  params: unknown;
  scope: JobScope;
  budgetMs: number;
  enqueuedAt: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  settled: boolean;
  /** The slot running it, once started. */
  slot?: Slot;
  /** CPU ms of the slot's thread when the job started lowered (its client ran long work), to tell if it was long too. */
  cpuAtStart?: number;
  /** Removes the deadline timer and the abort listener. */
  unhook?: () => void;
}

type Slot = WorkerSlot<Job>;

/** Retry-After bounds for a refused call (seconds). */
const RETRY_MIN_S = 1;
const RETRY_MAX_S = 30;
/** Consecutive worker failures before spawns back off, and the longest backoff. */
const BACKOFF_MAX_MS = 10_000;

export class RpcExecutionPool implements RpcExecutor {
  readonly options: RpcPoolOptions;
  private readonly queue: FairQueue<Job>;
  private readonly slots: Slot[] = [];
  private nextJobId = 1;
  private nextSlotId = 0;
  private closed = false;
  /** Moving average of job run time (ms), for Retry-After. */
  private avgJobMs = 50;
  /** Workers that died in a row without running a job: spawns wait `backoffUntil` meanwhile. */
  private failures = 0;
  private backoffUntil = 0;
  private backoffTimer: NodeJS.Timeout | undefined;
  /** Threads still to fail at start (RpcPoolSetup.failedStarts). */
  private failedStartsLeft: number;
  /** init() waiting for a first thread: the reasons of those that failed to start, and how many may. */
  private starting: { resolve: () => void; reject: (e: Error) => void; reasons: string[]; allowed: number } | undefined;
  /** Pumps again when the oldest young job stops counting against `youngJobsAtOnce`. */
  private youngTimer: NodeJS.Timeout | undefined;
  private readonly idleSweep: NodeJS.Timeout;
  /** Clients whose last lowered job ended at (performance.now()): their next jobs start lowered. */
  private readonly longClients = new Map<string, number>();

  constructor(
    private readonly setup: RpcPoolSetup,
    options: Partial<RpcPoolOptions> = {},
    private readonly deps: RpcPoolDeps = {},
  ) {
    this.options = resolveRpcPoolOptions(options);
    this.failedStartsLeft = setup.failedStarts ?? 0;
    this.queue = new FairQueue(this.options);
    this.idleSweep = setInterval(() => this.retireIdle(), Math.max(250, Math.floor(this.options.idleMs / 4)));
    this.idleSweep.unref();
  }

  /**
   * Starts the warm threads: two at once, the rest one after another in the background (each load takes a core for
   * a moment); resolves once the first is ready. Calls made before then wait in the queue. With `warm` 0 it starts
   * none: the first job starts its thread. A thread that fails to start is replaced (the pool grows back as for any
   * dead worker); the node fails only when the first threads and one replacement all failed, with every distinct
   * reason.
   */
  async init(): Promise<void> {
    if (this.options.warm === 0) return;
    const first = Math.min(2, this.options.warm);
    const started = new Promise<void>((resolve, reject) => {
      this.starting = { resolve, reject, reasons: [], allowed: first + 1 };
    });
    while (this.slots.length < first) this.spawn();
    try {
      await started;
    } finally {
      this.starting = undefined;
    }
    void this.warmRest();
  }

  /** A thread did not start: during init(), the node fails once `allowed` threads have (the pool retries meanwhile). */
  private startFailed(slot: Slot, reason: string): void {
    const s = this.starting;
    if (s) {
      s.reasons.push(reason);
      if (s.reasons.length >= s.allowed) {
        // One line per way they ended (reasons that differ only in their timings are one).
        const byKind = new Map(s.reasons.map((r) => [r.replace(/\d+ ms/g, 'N ms'), r]));
        const distinct = [...byKind.values()].join('; ');
        s.reject(
          new RpcPoolError('RPC_POOL_WORKER_FAILED', `rpc execution workers failed to start (${s.reasons.length} tries): ${distinct}`),
        );
      }
    }
    this.onGone(slot, `did not start: ${reason}`);
  }

  private async warmRest(): Promise<void> {
    while (!this.closed && this.slots.length < this.options.warm) {
      this.spawn();
      await this.slots[this.slots.length - 1].ready.catch(() => undefined);
    }
  }

  /** Threads running a job / ready / in all, and jobs waiting. */
  stats(): { busy: number; ready: number; workers: number; queued: number } {
    return {
      busy: this.slots.filter((s) => s.job).length,
      ready: this.slots.filter((s) => s.isReady).length,
      workers: this.slots.length,
      queued: this.waiting(),
    };
  }

  /** Jobs not started: in the queue, or sent ahead to a busy thread. */
  private waiting(): number {
    let n = this.queue.length;
    for (const s of this.slots) if (s.next) n++;
    return n;
  }

  run<K extends JobKind>(kind: K, params: JobParams<K>, scope: JobScope): Promise<JobResult<K>> {
    if (this.closed) return Promise.reject(closedError());
    const left = scope.deadline - Date.now();
    if (left <= 0 || scope.signal?.aborted) return Promise.reject(timedOut());
    return new Promise<JobResult<K>>((resolve, reject) => {
      const job: Job = {
        id: this.nextJobId,
        kind,
        params,
        scope,
        budgetMs: Math.max(1, Math.min(scope.budgetMs ?? left, left)),
        enqueuedAt: performance.now(),
        resolve: resolve as (v: unknown) => void,
        reject,
        settled: false,
      };
      this.nextJobId = this.nextJobId >= 0x7fff_ffff ? 1 : this.nextJobId + 1;
      const refusal = this.queue.offer(scope.client, job);
      if (refusal) {
        this.deps.metrics?.rpcPoolRefused.inc();
        reject(this.busy(refusal));
        return;
      }
      // The deadline and the client leaving both cancel (the dispatcher answers -32002 at the deadline itself).
      const timer = setTimeout(() => this.cancel(job), left);
      const onAbort = () => this.cancel(job);
      scope.signal?.addEventListener('abort', onAbort, { once: true });
      job.unhook = () => {
        clearTimeout(timer);
        scope.signal?.removeEventListener('abort', onAbort);
      };
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.starting?.reject(closedError());
    clearInterval(this.idleSweep);
    clearTimeout(this.backoffTimer);
    clearTimeout(this.youngTimer);
    for (const job of this.queue.drain()) this.settle(job, closedError());
    const slots = this.slots.splice(0);
    for (const s of slots) {
      if (s.job) this.settle(s.job, closedError());
      if (s.next) this.settle(s.next, closedError());
    }
    await Promise.all(slots.map((s) => s.terminate()));
  }

  /**
   * Starts waiting jobs on idle ready threads (fairest client first), at most `youngJobsAtOnce` of them in their
   * first DEMOTE_AFTER_MS (a client known for long work starts beyond that: it does not count), then grows the pool
   * if work still waits. The threads first in the list take the work, so cheap calls stay on a few hot threads.
   */
  private pump(): void {
    if (this.closed) return;
    const now = performance.now();
    let young = this.youngJobs(now);
    let idle = this.slots.filter((s) => s.isReady && !s.job).length;
    const isLong = (client: string) => this.isLongClient(client, now);
    for (const slot of this.slots) {
      if (!slot.isReady || slot.job) continue;
      const full = young >= this.options.youngJobsAtOnce;
      // The last idle thread is kept for clients not known for long work: a newcomer's call starts on it at once
      // instead of waiting for an attacker's loop to end or a new thread to load (long work waits for the spawn).
      const keepLast = idle === 1 && this.options.workers > 1;
      if (full && keepLast) break;
      const next = full ? this.queue.take(isLong) : keepLast ? this.queue.take((c) => !isLong(c)) : this.queue.take();
      if (!next) break;
      this.start(slot, next.job);
      idle--;
      if (next.job.cpuAtStart === undefined) young++;
    }
    this.sendAhead(now, isLong);
    this.repumpWhenOld(now);
    this.grow(young);
    this.deps.metrics?.rpcPoolQueued.set(this.waiting());
    this.deps.metrics?.rpcPoolBusy.set(this.slots.filter((s) => s.job).length);
    this.deps.metrics?.rpcPoolReady.set(this.slots.filter((s) => s.isReady).length);
  }

  /**
   * Jobs that still wait with no thread to start on now (all busy, or the young-job limit reached) go one each to a
   * thread busy with a young cheap job: it finds the next one in its port as it finishes and starts it at once, with
   * no wake-up and no round trip through the main loop (the hop cost the pool a third of the in-loop throughput on
   * cheap calls). This adds no concurrency: the job runs after the current one on the same thread. Only behind a
   * job in its first DEMOTE_AFTER_MS that did not start lowered, and only jobs of clients not known for long work; a
   * job sent ahead of one that turns out long is taken back (demoteIfLong).
   */
  private sendAhead(now: number, isLong: (client: string) => boolean): void {
    if (this.queue.startable() === 0) return;
    for (const slot of this.slots) {
      const cur = slot.job;
      if (!cur || slot.next || slot.takenBack !== undefined || cur.cpuAtStart !== undefined || now - slot.since >= DEMOTE_AFTER_MS)
        continue;
      const next = this.queue.take((c) => !isLong(c));
      if (!next) return;
      const job = next.job;
      slot.next = job;
      job.slot = slot;
      try {
        slot.postAhead({ id: job.id, kind: job.kind, params: job.params, budgetMs: job.budgetMs });
      } catch (err) {
        slot.next = undefined;
        this.queue.finished(job.scope.client);
        this.settle(job, err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  /**
   * Takes back the job sent ahead to `slot` if its worker has not started it: back first in its client's line (true),
   * or false when it has started (it then runs as the slot's next job).
   */
  private takeBackAhead(slot: Slot): boolean {
    const job = slot.next;
    if (!job || !slot.takeBack(job.id)) return false;
    slot.next = undefined;
    slot.takenBack = job.id;
    job.slot = undefined;
    if (job.settled) this.queue.finished(job.scope.client);
    else this.queue.putBack(job.scope.client, job);
    return true;
  }

  /** Running jobs in their first DEMOTE_AFTER_MS that did not start lowered (those of a client known for long work). */
  private youngJobs(now: number): number {
    let n = 0;
    for (const s of this.slots) if (s.job && s.job.cpuAtStart === undefined && now - s.since < DEMOTE_AFTER_MS) n++;
    return n;
  }

  /** While jobs wait behind the young-job limit, pumps again when the oldest young job stops counting. */
  private repumpWhenOld(now: number): void {
    clearTimeout(this.youngTimer);
    this.youngTimer = undefined;
    if (this.queue.startable() === 0) return;
    let oldest = Infinity;
    for (const s of this.slots)
      if (s.job && s.job.cpuAtStart === undefined && now - s.since < DEMOTE_AFTER_MS) oldest = Math.min(oldest, s.since);
    if (oldest === Infinity) return;
    this.youngTimer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(oldest + DEMOTE_AFTER_MS - now)));
  }

  /** The client's last lowered job ended less than LONG_CLIENT_MS ago: its next job starts lowered. */
  private isLongClient(client: string, now: number): boolean {
    const at = this.longClients.get(client);
    return at !== undefined && now - at < LONG_CLIENT_MS;
  }

  /**
   * Spawns threads, up to `workers`, so that every job that could start has a thread and one more is free: the
   * spare a newcomer's call starts on while the others are busy with long work. Jobs held back by the young-job
   * limit wait for a running one, not for a thread: only as many as the limit lets start count.
   */
  private grow(young: number): void {
    if (performance.now() < this.backoffUntil) return;
    const free = this.slots.filter((s) => !s.job).length;
    const startable = Math.min(this.queue.startable(), Math.max(0, this.options.youngJobsAtOnce - young));
    const want = startable + 1 - free;
    for (let i = 0; i < want && this.slots.length < this.options.workers; i++) this.spawn();
  }

  /**
   * Stops threads idle for `idleMs`, keeping `warm` and, while any job runs or waits, one free thread (with nothing
   * to do, only `warm`: 0 lets the last thread go).
   */
  private retireIdle(): void {
    const now = performance.now();
    const busy = this.slots.filter((s) => s.job).length;
    const keep = busy === 0 && this.queue.length === 0 ? this.options.warm : Math.max(this.options.warm, busy + 1);
    for (const slot of [...this.slots].reverse()) {
      if (this.slots.length <= keep) break;
      if (slot.job || !slot.isReady || now - slot.since < this.options.idleMs) continue;
      this.remove(slot);
      void slot.terminate();
    }
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    slot.since = performance.now();
    const longAt = this.longClients.get(job.scope.client);
    if (longAt !== undefined && slot.since - longAt < LONG_CLIENT_MS) {
      // Lowered before the post wakes the thread (the client's last job was long work).
      slot.lower(this.options.nice);
      job.cpuAtStart = slot.cpuMs();
    } else {
      if (longAt !== undefined) this.longClients.delete(job.scope.client);
      // Lowered only for its warm-up (spawn): the job and what is left of the warm-up run at the process's priority.
      slot.restore(BASE_NICE);
    }
    try {
      slot.post({ id: job.id, kind: job.kind, params: job.params, budgetMs: job.budgetMs });
    } catch (err) {
      // Params that cannot be cloned: a bug in the caller, answered as an internal error.
      this.release(slot);
      this.settle(job, err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.running(slot, job);
  }

  /** `job` has started on `slot` (posted to an idle thread, or the one sent ahead now that the last one ended). */
  private running(slot: Slot, job: Job): void {
    this.deps.metrics?.rpcPoolWaitSeconds.observe((slot.since - job.enqueuedAt) / 1000);
    if (job.settled) {
      // Sent ahead, cancelled after the worker had started it: it has the grace to stop (cancel raised the flag).
      slot.timer = setTimeout(() => this.overrun(slot, job, 'interrupt'), this.options.graceMs);
      return;
    }
    // The worker stops itself at the budget; past it plus the grace it is stuck and gets replaced.
    slot.timer = setTimeout(() => this.overrun(slot, job, 'budget'), job.budgetMs + this.options.graceMs);
    // A job still running after DEMOTE_AFTER_MS that keeps the CPU busy is long work (an attacker's endless loop, a
    // big scan): its thread drops to `nice` so cheap calls on other threads, the main loop and the chain thread go
    // first.
    if (job.cpuAtStart === undefined) slot.demoteTimer = setTimeout(() => this.demoteIfLong(slot, job), DEMOTE_AFTER_MS);
  }

  /**
   * Past DEMOTE_AFTER_MS of wall time: lowers the slot's thread once its job has used DEMOTE_AFTER_MS of CPU from
   * then on (at once where CPU time is unknown). A cheap call that only waited for the CPU never gets there.
   */
  private demoteIfLong(slot: Slot, job: Job, cpuFrom?: number): void {
    if (slot.job !== job) return;
    const cpu = slot.cpuMs();
    const from = cpuFrom ?? cpu;
    if (cpu === undefined || from === undefined || cpu - from >= DEMOTE_AFTER_MS) {
      slot.lower(this.options.nice);
      this.rememberLong(job.scope.client);
      // A job sent ahead would wait behind long work: it goes back to the queue for another thread.
      if (this.takeBackAhead(slot)) this.pump();
      return;
    }
    const left = DEMOTE_AFTER_MS - (cpu - from);
    slot.demoteTimer = setTimeout(() => this.demoteIfLong(slot, job, from), Math.max(DEMOTE_RECHECK_MS, left));
  }

  private rememberLong(client: string): void {
    this.longClients.delete(client);
    this.longClients.set(client, performance.now());
    if (this.longClients.size > LONG_CLIENTS_MAX) this.longClients.delete(this.longClients.keys().next().value as string);
  }

  /** The worker answered. */
  private onReply(slot: Slot, reply: JobReply): void {
    if ('skipped' in reply) {
      // The worker dropped a job taken back: the slot may have jobs sent ahead again.
      if (slot.takenBack === reply.id) slot.takenBack = undefined;
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    if (job.cpuAtStart !== undefined) {
      // Started lowered: still long work (keep the client's mark fresh), or a short job (the client is cleared).
      const cpu = slot.cpuMs();
      if (cpu !== undefined && cpu - job.cpuAtStart < DEMOTE_AFTER_MS) this.longClients.delete(job.scope.client);
      else this.rememberLong(job.scope.client);
    }
    this.failures = 0;
    this.avgJobMs = this.avgJobMs * 0.9 + reply.ms * 0.1;
    this.deps.metrics?.rpcPoolJobSeconds.observe(reply.ms / 1000);
    this.deps.metrics?.rpcPoolJobs.inc();
    this.release(slot);
    const next = slot.next;
    if (next) {
      // The worker went on to the job sent ahead as it posted this reply.
      slot.next = undefined;
      slot.job = next;
      this.running(slot, next);
    }
    if (reply.ok) this.settle(job, undefined, reply.value);
    else this.settle(job, deserializeError(reply.error));
    this.pump();
  }

  /** The request's deadline passed or its client left: drop it if waiting, interrupt it if running. */
  private cancel(job: Job): void {
    if (job.settled) return;
    const slot = job.slot;
    this.settle(job, timedOut());
    if (!slot) {
      this.queue.remove(job.scope.client, job);
      this.deps.metrics?.rpcPoolQueued.set(this.waiting());
      return;
    }
    this.deps.metrics?.rpcPoolInterrupted.inc();
    if (slot.next === job) {
      // Sent ahead: dropped unrun if the worker has not started it; otherwise it stops at the flag, and gets its grace
      // once the main thread sees it start (running()).
      if (!this.takeBackAhead(slot)) slot.interrupt(job.id);
      return;
    }
    slot.interrupt(job.id);
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.overrun(slot, job, 'interrupt'), this.options.graceMs);
  }

  /** The worker kept running past budget + grace (or past grace after an interrupt): answer, then replace it. */
  private overrun(slot: Slot, job: Job, why: 'budget' | 'interrupt'): void {
    if (slot.job !== job) return;
    this.settle(job, job.scope.budgetError?.() ?? timedOut());
    this.deps.logger?.warn('rpc worker did not stop: replacing it', {
      worker: slot.id,
      kind: job.kind,
      why,
      ranMs: Math.round(performance.now() - slot.since),
    });
    this.release(slot);
    this.dropAhead(slot, (next) => new RpcPoolError('RPC_POOL_WORKER_FAILED', 'execution worker was replaced', { kind: next.kind }));
    this.remove(slot);
    void slot.terminate();
    this.deps.metrics?.rpcPoolWorkerRestarts.inc();
    this.pump();
  }

  /**
   * The slot's worker is going away: a job sent ahead that it never started goes back to the queue; one it had
   * started fails with `error()`.
   */
  private dropAhead(slot: Slot, error: (next: Job) => Error): void {
    const next = slot.next;
    if (!next || this.takeBackAhead(slot)) return;
    slot.next = undefined;
    this.queue.finished(next.scope.client);
    this.settle(next, error(next));
  }

  /** A worker died: its job fails, and the pool grows back as work needs (with a backoff while workers keep dying). */
  private onGone(slot: Slot, why: string): void {
    if (this.closed || !this.slots.includes(slot)) return;
    const job = slot.job;
    this.release(slot);
    this.dropAhead(slot, (next) => new RpcPoolError('RPC_POOL_WORKER_FAILED', `execution worker failed: ${why}`, { kind: next.kind }));
    this.remove(slot);
    void slot.terminate();
    if (job) this.settle(job, new RpcPoolError('RPC_POOL_WORKER_FAILED', `execution worker failed: ${why}`, { kind: job.kind }));
    this.failures++;
    this.deps.logger?.error('rpc worker failed', { worker: slot.id, why, kind: job?.kind, failures: this.failures });
    this.deps.metrics?.rpcPoolWorkerRestarts.inc();
    if (this.failures > 1) {
      const delay = Math.min(BACKOFF_MAX_MS, 100 * 2 ** Math.min(this.failures - 2, 7));
      this.backoffUntil = performance.now() + delay;
      clearTimeout(this.backoffTimer);
      // The backoff ends when its timer fires (a timer may fire a little before performance.now() says it is due:
      // grow() would then skip the spawn with no timer left, and init() waited for ever).
      this.backoffTimer = setTimeout(() => {
        this.backoffUntil = 0;
        this.pump();
      }, delay);
      // While init() waits for a first thread the retry is what keeps the process going (the workers are unref'd).
      if (!this.starting) this.backoffTimer.unref();
    }
    this.pump();
  }

  private release(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    clearTimeout(slot.demoteTimer);
    slot.demoteTimer = undefined;
    slot.restore(BASE_NICE);
    const job = slot.job;
    slot.job = undefined;
    slot.since = performance.now();
    if (job) this.queue.finished(job.scope.client);
  }

  private remove(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private settle(job: Job, err: Error | undefined, value?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    job.unhook?.();
    if (err) job.reject(err);
    else job.resolve(value);
  }

  private busy(refusal: Refusal): RpcPoolError {
    const threads = Math.max(1, this.options.workers);
    const waitS = Math.ceil((this.avgJobMs * (this.queue.length + 1)) / threads / 1000);
    const retryAfterSeconds = Math.min(RETRY_MAX_S, Math.max(RETRY_MIN_S, waitS));
    const what = refusal === 'queue-full' ? 'execution queue full' : 'too many expensive calls waiting for this client';
    return new RpcPoolError('RPC_POOL_BUSY', `limit exceeded: ${what}`, { retryAfterSeconds, refusal });
  }

  private spawn(): void {
    const failStart = this.failedStartsLeft > 0;
    if (failStart) this.failedStartsLeft--;
    // The first thread takes most jobs (the first idle one in the list gets each): it warms up the tracing code once
    // ready (warmUp.ts), lowered to `nice` as for long work until its first job (start() restores it).
    const warmTracing = this.slots.length === 0;
    const slot: Slot = new WorkerSlot<Job>(
      this.nextSlotId++,
      {
        datadir: this.setup.datadir,
        config: this.setup.config,
        readDeadlineMs: this.setup.readDeadlineMs ?? defaultStoreOptions.readDeadlineMs,
        ...(this.setup.faults ? { faults: this.setup.faults } : {}),
        ...(failStart ? { failStart } : {}),
        ...(warmTracing ? { warmTracing } : {}),
      },
      this.options,
      { reply: (s, reply) => this.onReply(s, reply), gone: (s, why) => this.onGone(s, why) },
    );
    this.slots.push(slot);
    slot.ready.then(
      () => {
        if (warmTracing) slot.lower(this.options.nice);
        this.starting?.resolve();
        this.pump();
      },
      (err: unknown) => this.startFailed(slot, err instanceof Error ? err.message : String(err)),
    );
  }
}

/** The request passed its deadline (or its client went away) before its job finished. */
function timedOut(): RpcPoolError {
  return new RpcPoolError('RPC_POOL_DEADLINE', 'request timed out');
}

function closedError(): RpcPoolError {
  return new RpcPoolError('RPC_POOL_CLOSED', 'rpc execution pool is closed');
}
