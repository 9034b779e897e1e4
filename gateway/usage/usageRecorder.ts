import type { Identity } from '../env.ts';
import { KNOWN_METHODS } from '../methods/classify.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import type { RpcCall } from '../rpc/types.ts';
import {
  addCounts,
  lastDays,
  UsageWriteError,
  utcDay,
  type UsageByDay,
  type UsageCounts,
  type UsageDelta,
  type UsageStore,
} from './types.ts';

/** Options of the recorder. */
export interface UsageRecorderOptions {
  store: UsageStore;
  metrics: GatewayMetrics;
  /** Pending counts are written to the store at most this long after the first of them (one write per cell). */
  flushMs?: number;
  /** Cells held while the store cannot be written (beyond it the oldest are dropped and counted as lost). */
  maxPending?: number;
  /**
   * False where timers do not outlive the request that set them (Workers): nothing is scheduled here, and the adapter
   * keeps `flushDue()` alive after each answer (ctx.waitUntil) instead. Default true (Node: a timer per `flushMs`).
   */
  timers?: boolean;
  now?: () => number;
}

/** An armed Workers flush older than this is taken as lost (its request's context was cut short) and re-armed. */
const STALE_FLUSH_MS = 30_000;
/** Flush rounds one armed flush runs at most (a waitUntil is bounded; the next request arms the next one). */
const MAX_ROUNDS = 10;

/**
 * Per-key usage accounting (issue #17): every answered call of a keyed caller adds to its (key, UTC day, method)
 * cell: calls, compute units (the method weights the limiter charged) and refusals. Counts are summed in memory and
 * written to the store in one batch per `flushMs` (a hot key costs one store write per method per second, not one
 * per call); a reader sees the store plus what this instance has not written yet. Every call, keyed or not, also
 * feeds the per-tier Prometheus series (never per key: keys are unbounded).
 */
export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;
  private readonly now: () => number;
  private lastFlushAt = 0;
  private armedAt = 0;

  constructor(private readonly opts: UsageRecorderOptions) {
    this.now = opts.now ?? (() => Date.now());
  }

  /** Counts the calls of one answered request (HTTP or one WebSocket message). */
  record(who: Identity | undefined, calls: readonly RpcCall[]): void {
    if (!who || calls.length === 0) return;
    const day = utcDay(this.now());
    for (const call of calls) {
      const admitted = call.limiter.decision === 'allow';
      const refused = call.limiter.decision === 'deny';
      const computeUnits = admitted ? call.cost : 0;
      this.opts.metrics.usage(who.tierName, refused ? 'refused' : admitted ? 'admitted' : 'other', computeUnits);
      if (who.key) this.add(who.key.id, day, call.method, { calls: 1, computeUnits, refused: refused ? 1 : 0 });
    }
  }

  /** Counts work charged outside a call (a delivered subscription notification), as `method`. */
  recordCharge(who: Identity, method: string, computeUnits: number): void {
    this.opts.metrics.usage(who.tierName, 'admitted', computeUnits);
    if (who.key) this.add(who.key.id, utcDay(this.now()), method, { calls: 1, computeUnits, refused: 0 }, true, true);
  }

  /** The last `days` UTC days of a key's usage (oldest first), this instance's unwritten counts included. */
  async read(keyId: string, days: number): Promise<{ day: string; methods: Map<string, UsageCounts> }[]> {
    const wanted = lastDays(this.now(), days);
    const stored: UsageByDay = await this.opts.store.read(keyId, wanted);
    for (const d of this.pending.values()) {
      if (d.keyId !== keyId || !wanted.includes(d.day)) continue;
      let methods = stored.get(d.day);
      if (!methods) stored.set(d.day, (methods = new Map()));
      const cell = methods.get(d.method);
      if (cell) addCounts(cell, d);
      else methods.set(d.method, { calls: d.calls, computeUnits: d.computeUnits, refused: d.refused });
    }
    return wanted.map((day) => ({ day, methods: stored.get(day) ?? new Map() }));
  }

  /** Writes what is pending (also on close); a failed write keeps the counts for the next one. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.opts.store.add(batch).then(
      () => undefined,
      (err: unknown) => this.keep(err, batch),
    );
    await this.flushing;
    this.flushing = undefined;
  }

  /**
   * Workers (no timers, `timers: false`): the flush the current request should keep alive after its answer
   * (ctx.waitUntil), or undefined when nothing is pending or a flush is already armed. It waits until `flushMs` after
   * the last write, then writes what is pending, again while more arrives (up to 10 rounds), all in the context of
   * the request that armed it: no request ever waits on another request's I/O (workerd cancels such waits).
   */
  flushDue(): Promise<void> | undefined {
    const now = this.now();
    if (this.pending.size === 0 || (this.armedAt !== 0 && now - this.armedAt < STALE_FLUSH_MS)) return undefined;
    this.armedAt = now;
    const flushMs = this.opts.flushMs ?? 1_000;
    const round = async (left: number): Promise<void> => {
      const wait = this.lastFlushAt + flushMs - this.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      this.lastFlushAt = this.now();
      try {
        await this.opts.store.add(batch);
      } catch (err) {
        this.keep(err, batch);
        return;
      }
      if (left > 1) await round(left - 1);
    };
    return round(MAX_ROUNDS).finally(() => (this.armedAt = 0));
  }

  /** A failed write keeps what it did not write for the next flush. */
  private keep(err: unknown, batch: readonly UsageDelta[]): void {
    for (const d of err instanceof UsageWriteError ? err.unwritten : batch) this.add(d.keyId, d.day, d.method, d, false, true);
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private add(keyId: string, day: string, rawMethod: string, counts: UsageCounts, schedule = true, named = false): void {
    // Method names are the client's: unknown ones share one cell, so a key cannot grow the store without bound.
    const method = named || KNOWN_METHODS.has(rawMethod) ? rawMethod : 'other';
    const name = `${keyId}\n${day}\n${method}`;
    const cell = this.pending.get(name);
    if (cell) addCounts(cell, counts);
    else {
      if (this.pending.size >= (this.opts.maxPending ?? 100_000)) this.pending.delete(this.pending.keys().next().value as string);
      this.pending.set(name, { keyId, day, method, calls: counts.calls, computeUnits: counts.computeUnits, refused: counts.refused });
    }
    if (schedule && !this.timer && this.opts.timers !== false) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs ?? 1_000);
      // Node: a pending flush does not keep the process alive (close() flushes). Workers timers have no unref.
      (this.timer as { unref?: () => void }).unref?.();
    }
  }
}
