import type { ChargeResult, RateLimiter, ScopeBucket, ScopeState } from './types.ts';

/** Options of the token-leasing wrapper. */
export interface LeasingLimiterOptions {
  /**
   * Tokens one lease takes from the shared bucket on a slow bucket (0 or 1: no leasing, every decision goes to the
   * backend). A fast bucket's lease holds `refillMs` of its refill instead, when that is more.
   */
  maxTokens: number;
  /** A lease never takes more than this share of the bucket's burst (default 1 %): what one instance may hold unspent. */
  burstShare?: number;
  /**
   * A lease holds at least this much of the bucket's refill (default 100 ms): at 1e9/s a lease of 32 tokens lived
   * 32 ns, so every call waited for Redis; one of 100 ms of refill outlives many calls and is renewed ahead of time.
   */
  refillMs?: number;
  /** Clock in ms; only differences are used (default performance.now(): sub-millisecond, monotonic). */
  now?: () => number;
  /** Buckets with a lease kept at most (the oldest go first; their unspent tokens are given back). */
  maxBuckets?: number;
}

/**
 * The share of its burst a small bucket's lease may hold (from a burst of 40: 2 tokens), where burstShare gives fewer
 * than SMALL_LEASE tokens: the anonymous tier (20/s, burst 40) leases 2 instead of none, a small tier (50/s, burst
 * 100) 5 instead of none, the default tier (100/s, burst 200) 10 instead of 2 (100 ms of refill each, at most 5 %).
 */
const SMALL_SHARE = 0.05;
/** Below this many tokens a lease is spent in a call or two and renewed about as often as the calls come. */
const SMALL_LEASE = 5;

/** The shared limiter behind leases: it must take many unit tokens in one step (`lease`). */
export type LeaseBackend = RateLimiter & Required<Pick<RateLimiter, 'lease'>>;

/**
 * Tokens of one lease fetch not spent yet. They are charged on the shared bucket as the last `granted` slots before
 * `tat` (GCRA appends a charge at the bucket's TAT), and each slot is refilled on the shared bucket when its time
 * comes: past `tat − k × interval` at most k of them may still be spent, or the instance would spend tokens the shared
 * bucket has refilled already (admitting more than burst + rate × time).
 */
interface Segment {
  tokens: number;
  /** The shared bucket's TAT right after this fetch, on the local clock (send time + exact reset: early, never late). */
  tat: number;
}

/** Tokens this instance took from one shared bucket and has not spent yet. */
interface Lease {
  bucket: ScopeBucket;
  /** ms per token. */
  interval: number;
  /** Oldest first: the oldest run out first and are spent first. */
  segments: Segment[];
  /** The shared bucket's TAT after the last fetch, on the local clock (the RateLimit headers' reset). */
  tat: number;
  /** The shared bucket had no token left before this (send time + the backend's retry-after). */
  deniedUntil: number;
  /** Calls waiting for the fetch in flight (one per bucket at a time), served in order when it answers. */
  queue: Waiter[];
  fetching: boolean;
}

interface Waiter {
  costs: readonly number[];
  total: number;
  resolve(r: ChargeResult): void;
  reject(err: unknown): void;
}

const nameOf = (b: ScopeBucket) => `${b.scope}:${b.id}`;

/** Tokens of a segment still spendable at `now` (its slots in the past have been refilled on the shared bucket). */
const live = (s: Segment, now: number, interval: number) => Math.max(0, Math.min(s.tokens, Math.floor((s.tat - now) / interval)));

/**
 * Leases tokens from the shared limiter (Redis) and spends them in-process, so most decisions make no round trip
 * (issue #17: one Redis call per request was most of a cached hit's cost and the limiter's p99).
 * A lease is a charge of unit tokens on the shared bucket: what it grants is already deducted there, and a token is
 * spent only while its slot on the shared bucket is still in the future (`live`), so the instances together never
 * admit more than the bucket's arithmetic allows. The imprecision is the other way: tokens leased and not yet spent
 * are missing from the other instances, at most one lease per instance and bucket.
 * - size: min(max(burstShare × burst, 2 from a burst of 40), max(maxTokens, refillMs of refill)); below 2 tokens the bucket is decided on the
 *   backend every time.
 * - renewed ahead: a call that leaves less than half a lease spendable fetches the rest in the background, so a busy
 *   bucket's calls never wait for the backend (issue #17: at 1e9/s every call waited on its own round trip).
 * - one fetch per bucket at a time; calls arriving meanwhile that the lease cannot serve wait, and the next fetch asks
 *   for what they need.
 * - a refused lease (no token left) refuses locally until the backend's retry-after, measured from the send time.
 * Charges of several buckets, or costing more than one lease, go to the backend as they are.
 */
export class LeasingLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly now: () => number;
  private readonly maxBuckets: number;
  private readonly burstShare: number;
  private readonly refillMs: number;

  constructor(
    private readonly shared: LeaseBackend,
    private readonly opts: LeasingLimiterOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.maxBuckets = opts.maxBuckets ?? 100_000;
    this.burstShare = opts.burstShare ?? 0.01;
    this.refillMs = opts.refillMs ?? 100;
  }

  /** Tokens one lease of this bucket takes (< 2: no leasing). */
  leaseSize(b: ScopeBucket): number {
    if (this.opts.maxTokens < 2) return 0;
    const byRate = Math.ceil((b.params.ratePerSec * this.refillMs) / 1000);
    // A small bucket may hold up to SMALL_SHARE of its burst (its refillMs of refill, when less): at 1 % a small tier
    // (50/s, burst 100) leased 1 token, i.e. no lease, and every call on such a key waited for Redis; the default
    // tier leased 2 (a 2-token lease, as the anonymous tier's: 0.63 round trips per call in the test at 0.8x the rate).
    const share = Math.floor(b.params.burst * this.burstShare);
    const small = Math.floor(b.params.burst * SMALL_SHARE);
    const bound = share >= SMALL_LEASE || small < 2 ? share : Math.min(small, Math.max(2, byRate));
    return Math.min(bound, Math.max(this.opts.maxTokens, byRate));
  }

  /** The decision from a lease already held, when it needs no round trip (undefined: call `charge`). */
  chargeNow(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult | undefined {
    if (buckets.length !== 1 || costs.length === 0) return undefined;
    const lease = this.leases.get(nameOf(buckets[0] as ScopeBucket));
    if (!lease || lease.queue.length > 0) return undefined;
    const now = this.now();
    return this.spend(lease, costs, now, now < lease.deniedUntil);
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    const b = buckets[0];
    const total = costs.reduce((a, c) => a + c, 0);
    if (buckets.length !== 1 || !b || costs.length === 0 || this.leaseSize(b) < 2 || total > this.leaseSize(b))
      return this.shared.charge(buckets, costs);
    const name = nameOf(b);
    const lease = this.leases.get(name) ?? {
      bucket: b,
      interval: 1000 / b.params.ratePerSec,
      segments: [],
      tat: 0,
      deniedUntil: 0,
      queue: [],
      fetching: false,
    };
    if (lease.queue.length === 0) {
      const now = this.now();
      const result = this.spend(lease, costs, now, now < lease.deniedUntil);
      if (result) return result;
    }
    this.remember(name, lease);
    return new Promise((resolve, reject) => {
      lease.queue.push({ costs, total, resolve, reject });
      if (!lease.fetching) this.fetch(lease);
    });
  }

  /** Tokens of the lease still spendable at `now` (drops the segments that ran out). */
  private spendable(lease: Lease, now: number): number {
    let n = 0;
    lease.segments = lease.segments.filter((s) => {
      const k = live(s, now, lease.interval);
      n += k;
      return k > 0;
    });
    return n;
  }

  /**
   * Spends the lease on the calls in order, oldest tokens first. All fit: admitted. Otherwise, when `refuse` (the
   * shared bucket has nothing more now), the prefix that fits is admitted and the rest refused; else undefined (fetch
   * more first). A call that leaves less than half a lease renews it in the background.
   */
  private spend(lease: Lease, costs: readonly number[], now: number, refuse: boolean): ChargeResult | undefined {
    const have = this.spendable(lease, now);
    let need = 0;
    let admitted = 0;
    for (const c of costs) {
      if (need + c > have) break;
      need += c;
      admitted++;
    }
    if (admitted < costs.length && !refuse) return undefined;
    for (let left = need; left > 0;) {
      const s = lease.segments[0] as Segment;
      const take = Math.min(left, live(s, now, lease.interval));
      s.tokens -= take;
      left -= take;
      if (take === 0 || s.tokens === 0) lease.segments.shift();
    }
    const tokens = have - need;
    const { params, scope } = lease.bucket;
    const interval = lease.interval;
    const tau = params.burst * interval;
    const tat = Math.max(lease.tat, now);
    const state: ScopeState = {
      scope,
      limit: params.burst,
      remaining: Math.min(params.burst, Math.max(0, Math.floor((tau - (tat - now)) / interval) + tokens)),
      resetMs: Math.max(0, Math.ceil(tat - now)),
    };
    if (!refuse && !lease.fetching && tokens < this.leaseSize(lease.bucket) / 2) this.fetch(lease);
    if (admitted === costs.length) return { admitted, scopes: [state] };
    const cost = costs[admitted] as number;
    // The missing tokens come back at the bucket's rate from when the backend last had none.
    const retryAfterMs = Math.max(1, Math.ceil(lease.deniedUntil - now + (cost - tokens - 1) * interval));
    return { admitted, scopes: [state], denied: { scope, retryAfterMs, cost } };
  }

  /**
   * One lease fetch: unit tokens from the shared bucket, enough to bring what the lease holds back to a lease's size
   * and to serve the calls waiting; the grant joins what is still spendable and serves the waiters in order. A waiter
   * the bucket had no token for is refused; one the grant cannot serve yet waits for the next fetch.
   */
  private fetch(lease: Lease): void {
    lease.fetching = true;
    const sent = this.now();
    const demand = lease.queue.reduce((a, w) => a + w.total, 0);
    const want = Math.max(this.leaseSize(lease.bucket) - this.spendable(lease, sent), demand, 1);
    this.shared.lease(lease.bucket, want).then(
      (r) => {
        lease.fetching = false;
        // Exact reset from the send time: the TAT on the local clock is early, never late.
        lease.tat = sent + (r.scopes[0]?.resetMs ?? 0);
        if (r.admitted > 0) lease.segments.push({ tokens: r.admitted, tat: lease.tat });
        lease.deniedUntil = r.denied ? sent + r.denied.retryAfterMs : 0;
        const now = this.now();
        while (lease.queue.length > 0) {
          const w = lease.queue[0] as Waiter;
          const result = this.spend(lease, w.costs, now, now < lease.deniedUntil);
          if (!result) break;
          lease.queue.shift();
          w.resolve(result);
        }
        if (lease.queue.length > 0 && !lease.fetching) this.fetch(lease);
      },
      (err: unknown) => {
        lease.fetching = false;
        for (const w of lease.queue.splice(0)) w.reject(err);
      },
    );
  }

  /** Ends a lease: tokens still spendable and worth at least 1 ms of refill go back to the shared bucket (best effort). */
  private end(lease: Lease): void {
    this.leases.delete(nameOf(lease.bucket));
    const left = this.spendable(lease, this.now());
    lease.segments = [];
    if (left > 0 && this.shared.debit && left * lease.interval >= 1) this.shared.debit(lease.bucket, -left).catch(() => undefined);
  }

  private remember(name: string, lease: Lease): void {
    this.leases.delete(name);
    this.leases.set(name, lease);
    if (this.leases.size > this.maxBuckets) {
      const oldest = this.leases.values().next().value as Lease;
      if (!oldest.fetching) this.end(oldest);
    }
  }

  /** Tokens held spendable for a bucket now (tests). */
  heldFor(b: ScopeBucket): number {
    const lease = this.leases.get(nameOf(b));
    return lease ? this.spendable(lease, this.now()) : 0;
  }

  async debit(bucket: ScopeBucket, tokens: number): Promise<void> {
    await this.shared.debit?.(bucket, tokens);
  }

  async warm(): Promise<void> {
    await this.shared.warm?.();
  }

  /** Gives every unspent lease back, then closes the backend. */
  async close(): Promise<void> {
    for (const lease of [...this.leases.values()]) if (!lease.fetching) this.end(lease);
    await this.shared.close?.();
  }
}
