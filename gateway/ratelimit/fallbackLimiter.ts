import type { FailMode } from '../config/types.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import { gcraCharge } from './gcra.ts';
import type { ChargeResult, RateLimiter, ScopeBucket, ScopeName } from './types.ts';

/** Options of the fail-mode wrapper. */
export interface FallbackLimiterOptions {
  failMode: Record<ScopeName, FailMode>;
  /** After this, a late decision that the fail modes would grant in full is granted locally. */
  timeoutMs: number;
  /**
   * A decision still unanswered after this counts as a backend failure (the fail modes decide, refusals included).
   * Until then a call the fail modes would refuse waits for the shared answer: a slow backend never refuses a call
   * that the shared bucket admits. Default: `timeoutMs` (every late decision is a failure).
   */
  maxWaitMs?: number;
  metrics: GatewayMetrics;
  /** After a failure, skip the shared backend this long instead of paying its timeout on every call. */
  cooldownMs?: number;
  now?: () => number;
  /** Local buckets and debts kept at most (the oldest go first). */
  maxBuckets?: number;
}

/** How long a refusal from a fail-closed scope asks the client to wait. */
const CLOSED_RETRY_MS = 1_000;

const nameOf = (b: ScopeBucket) => `${b.scope}:${b.id}`;
const sum = (costs: readonly number[], n: number) => costs.slice(0, n).reduce((a, c) => a + c, 0);

/** What the shared backend's late answer (after the deadline) or its failure leaves to settle. */
interface Pending {
  buckets: readonly ScopeBucket[];
  costs: readonly number[];
  /** Calls the local decision admitted in its place. */
  admittedLocally: number;
}

/**
 * Wraps the shared limiter (Redis, a Durable Object) and decides per scope when it fails or is too slow: `open`
 * admits, `closed` refuses, `local` charges an in-process bucket. The local bucket never grants more than the
 * shared one would (issue #17 item 4: it used to start full, so two instances on a busy host admitted 748 calls
 * against 450 allowed):
 * - it starts **empty** (refilling at the bucket's rate) unless the shared bucket was last seen further drawn;
 * - what it admits is a **debt** charged to the shared bucket (`debit`) once the backend answers again, unless the
 *   shared decision that timed out lands after all and already charged it.
 * And a slow backend never refuses a call on its own (issue #17: on a loaded host the first decision of a fresh key
 * took longer than 50 ms and the empty local bucket answered 429): a late decision is decided locally only when the
 * fail modes grant every call; one they would refuse keeps waiting for the shared answer up to `maxWaitMs`, and only
 * a backend that failed or is slower than that hands refusals to the fail modes (and is then skipped for the
 * cooldown). A deadline that passes while the event loop was busy waits one more loop turn for the answer that may
 * already sit in the socket. So during an outage each instance admits at most `ratePerSec × seconds` per bucket,
 * and afterwards the shared bucket is charged for it. Every fallback decision increments
 * xone_gateway_ratelimit_backend_failures_total.
 */
export class FallbackLimiter implements RateLimiter {
  private downUntil = 0;
  private readonly now: () => number;
  private readonly maxBuckets: number;
  /** Local TATs of buckets decided here since the shared backend last answered for them. */
  private readonly local = new Map<string, number>();
  /** The shared bucket's TAT as last reported (a floor for a local bucket's start). */
  private readonly seen = new Map<string, number>();
  /** Tokens admitted locally and not yet charged to the shared bucket (negative: a credit), per bucket. */
  private readonly debts = new Map<string, { bucket: ScopeBucket; tokens: number }>();
  private flushing = false;

  constructor(
    private readonly shared: RateLimiter,
    private readonly opts: FallbackLimiterOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    this.maxBuckets = opts.maxBuckets ?? 100_000;
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    // Tokens already taken from the shared bucket (a lease) are spent without a deadline, even during an outage.
    const held = this.shared.chargeNow?.(buckets, costs);
    if (held) {
      this.onShared(buckets, held);
      return held;
    }
    if (this.now() < this.downUntil) {
      const local = this.decideLocally(buckets, costs);
      this.owe(buckets, sum(costs, local.admitted));
      return local;
    }
    // Only an answer from the shared backend ends a local episode (onShared, settleLater): a try that fails again
    // keeps the local bucket, which refills at the bucket's rate while the outage lasts. Dropping it on every try
    // (each cooldown) refused every call of a client slower than one per cooldown for the whole outage.
    const decision = this.shared.charge(buckets, costs);
    let settled = await deadline(decision, this.opts.timeoutMs);
    if (!settled.ok && !settled.failed) {
      // Late, not failed: what the fail modes grant in full is granted now; a refusal waits for the real answer.
      const local = this.tryLocally(buckets, costs);
      if (local.result.admitted === costs.length) {
        local.commit();
        this.settleLater(decision, { buckets, costs, admittedLocally: local.result.admitted });
        return local.result;
      }
      const rest = (this.opts.maxWaitMs ?? this.opts.timeoutMs) - this.opts.timeoutMs;
      if (rest > 0) settled = await deadline(decision, rest);
    }
    if (settled.ok) {
      this.onShared(buckets, settled.value);
      return settled.value;
    }
    // Failed, or slower than maxWaitMs: skipped for the cooldown instead of paying the wait on every call.
    this.downUntil = this.now() + (this.opts.cooldownMs ?? 250);
    const local = this.decideLocally(buckets, costs);
    this.settleLater(decision, { buckets, costs, admittedLocally: local.admitted });
    return local;
  }

  /** Debits the shared bucket; while it cannot be reached the tokens are owed and charged once it answers. */
  async debit(bucket: ScopeBucket, tokens: number): Promise<void> {
    if (!this.shared.debit) return;
    if (this.now() >= this.downUntil) {
      try {
        await this.shared.debit(bucket, tokens);
        return;
      } catch {
        // owed below
      }
    }
    this.owe([bucket], tokens);
  }

  /** Local tokens not yet charged to the shared backend (tests, metrics). */
  debtOf(bucket: ScopeBucket): number {
    return this.debts.get(nameOf(bucket))?.tokens ?? 0;
  }

  private onShared(buckets: readonly ScopeBucket[], result: ChargeResult): void {
    const now = this.now();
    buckets.forEach((b, i) => {
      const name = nameOf(b);
      this.local.delete(name);
      const s = result.scopes[i];
      if (s) this.remember(this.seen, name, now + s.resetMs);
    });
    if (this.debts.size > 0) void this.flush();
  }

  /** The decision that timed out: if it lands, it charged the shared bucket for its own admissions. */
  private settleLater(decision: Promise<ChargeResult>, p: Pending): void {
    decision.then(
      // Positive: served more than the shared bucket was charged for. Negative: the shared bucket charged calls that
      // were refused here, a credit given back (so a busy host does not under-admit either).
      (late) => {
        // The backend answers again: a local bucket refilled while unused must not carry a burst into the next
        // episode (the shared bucket, not this instance, holds the burst).
        for (const b of p.buckets) this.local.delete(nameOf(b));
        this.owe(p.buckets, sum(p.costs, p.admittedLocally) - sum(p.costs, late.admitted));
        // It answered after all: the backend is reachable, settle what is owed.
        void this.flush();
      },
      () => this.owe(p.buckets, sum(p.costs, p.admittedLocally)),
    );
  }

  private owe(buckets: readonly ScopeBucket[], tokens: number): void {
    if (tokens === 0 || !this.shared.debit) return;
    for (const b of buckets) {
      if (this.opts.failMode[b.scope] !== 'local') continue;
      const name = nameOf(b);
      const d = this.debts.get(name);
      if (d) d.tokens += tokens;
      else if (this.debts.size < this.maxBuckets) this.debts.set(name, { bucket: b, tokens });
    }
  }

  /** Charges the debts to the shared bucket (one at a time; a failure keeps the rest for the next success). */
  private async flush(): Promise<void> {
    if (this.flushing || !this.shared.debit) return;
    this.flushing = true;
    try {
      for (const [name, d] of [...this.debts]) {
        this.debts.delete(name);
        if (d.tokens === 0) continue;
        try {
          await this.shared.debit(d.bucket, d.tokens);
        } catch {
          this.owe([d.bucket], d.tokens);
          return;
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The fail modes' decision, counted and recorded. */
  private decideLocally(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult {
    const local = this.tryLocally(buckets, costs);
    local.commit();
    return local.result;
  }

  /** What the fail modes would decide, without counting it or touching the local buckets until `commit`. */
  private tryLocally(buckets: readonly ScopeBucket[], costs: readonly number[]): { result: ChargeResult; commit(): void } {
    const count = () => {
      for (const b of buckets) this.opts.metrics.limiterBackendFailure(b.scope, this.opts.failMode[b.scope]);
    };
    const closed = buckets.find((b) => this.opts.failMode[b.scope] === 'closed');
    if (closed) {
      const scopes = buckets.map((b) => ({ scope: b.scope, limit: b.params.burst, remaining: 0, resetMs: CLOSED_RETRY_MS }));
      const denied = { scope: closed.scope, retryAfterMs: CLOSED_RETRY_MS, cost: costs[0] ?? 0 };
      return { result: { admitted: 0, scopes, denied, fallback: true }, commit: count };
    }
    const localBuckets = buckets.filter((b) => this.opts.failMode[b.scope] === 'local');
    if (localBuckets.length === 0) {
      const scopes = buckets.map((b) => ({ scope: b.scope, limit: b.params.burst, remaining: b.params.burst, resetMs: 0 }));
      return { result: { admitted: costs.length, scopes, fallback: true }, commit: count };
    }
    const now = this.now();
    const names = localBuckets.map(nameOf);
    // A bucket new to this fallback starts empty (tau ahead), or further drawn if the shared one was.
    const tats = localBuckets.map((b, i) => {
      const name = names[i] as string;
      return this.local.get(name) ?? Math.max(now + (b.params.burst * 1000) / b.params.ratePerSec, this.seen.get(name) ?? 0);
    });
    const result = { ...gcraCharge(localBuckets, costs, now, tats), fallback: true };
    const commit = () => {
      count();
      names.forEach((n, i) => this.remember(this.local, n, tats[i] as number));
    };
    return { result, commit };
  }

  private remember(map: Map<string, number>, name: string, tat: number): void {
    map.delete(name);
    map.set(name, tat);
    if (map.size > this.maxBuckets) map.delete(map.keys().next().value as string);
  }

  async warm(): Promise<void> {
    await this.shared.warm?.();
  }

  async close(): Promise<void> {
    await this.shared.close?.();
  }
}

/**
 * Waits for `p` up to `ms`; when the timer fires, one more timer turn lets I/O that already arrived (a Redis reply
 * read late because the loop was busy) settle `p` before it counts as late. Never rejects.
 */
function deadline<T>(p: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; failed: boolean }> {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => setTimeout(() => !done && ((done = true), resolve({ ok: false, failed: false })), 0), ms);
    p.then(
      (value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ok: false, failed: true });
      },
    );
  });
}
