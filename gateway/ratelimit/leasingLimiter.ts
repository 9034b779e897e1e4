import type { ChargeResult, RateLimiter, ScopeBucket, ScopeState } from './types.ts';

/** Options of the token-leasing wrapper. */
export interface LeasingLimiterOptions {
  /** Most tokens one lease takes from the shared bucket (0 or 1: no leasing, every decision goes to the backend). */
  maxTokens: number;
  /** A lease never takes more than this share of the bucket's burst (default 1 %): what one instance may hold unspent. */
  burstShare?: number;
  now?: () => number;
  /** Buckets with a lease kept at most (the oldest go first; their unspent tokens are given back). */
  maxBuckets?: number;
}

/** Tokens this instance took from one shared bucket and has not spent yet. */
interface Lease {
  bucket: ScopeBucket;
  tokens: number;
  /**
   * The shared bucket's TAT on the local clock (the lease's send time + the reset the backend reported, at least
   * 1 ms): the bucket is full again no earlier than this. Past it, unspent tokens would add to a full bucket, so the
   * lease ends.
   */
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

/**
 * Leases tokens from the shared limiter (Redis) in small batches and spends them in-process, so most decisions make
 * no round trip (issue #17: one Redis call per request was most of a cached hit's cost and the limiter's p99).
 * A lease is an ordinary charge of `size` unit costs on the shared bucket: what it grants is already deducted
 * there, so spending it never admits more than the shared bucket allows. The imprecision is the other way: tokens
 * leased and not yet spent are missing from the other instances, at most `size` per instance and bucket; a lease
 * that ends unspent gives them back (a credit, when they are worth at least 1 ms of refill).
 * - size: min(maxTokens, burstShare × burst); a bucket too small for 2 tokens is decided on the backend every time.
 * - one lease fetch per bucket at a time; calls arriving meanwhile wait and the next fetch asks for what they need.
 * - a lease ends at the shared bucket's TAT (past it the bucket would be full and the tokens must not add to it).
 * - a refused lease (no token left) refuses locally until the backend's retry-after, measured from the send time.
 * Charges of several buckets, or costing more than one lease, go to the backend as they are.
 */
export class LeasingLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly now: () => number;
  private readonly maxBuckets: number;
  private readonly burstShare: number;

  constructor(
    private readonly shared: RateLimiter,
    private readonly opts: LeasingLimiterOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    this.maxBuckets = opts.maxBuckets ?? 100_000;
    this.burstShare = opts.burstShare ?? 0.01;
  }

  /** Tokens one lease of this bucket takes (< 2: no leasing). */
  leaseSize(b: ScopeBucket): number {
    return Math.min(this.opts.maxTokens, Math.floor(b.params.burst * this.burstShare));
  }

  /** The decision from a lease already held, when it needs no round trip (undefined: call `charge`). */
  chargeNow(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult | undefined {
    if (buckets.length !== 1 || costs.length === 0) return undefined;
    const lease = this.leases.get(nameOf(buckets[0] as ScopeBucket));
    if (!lease || lease.queue.length > 0) return undefined;
    const now = this.now();
    if (now >= lease.tat) return undefined;
    return this.spend(lease, costs, now, now < lease.deniedUntil);
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    const b = buckets[0];
    const total = costs.reduce((a, c) => a + c, 0);
    if (buckets.length !== 1 || !b || costs.length === 0 || this.leaseSize(b) < 2 || total > this.leaseSize(b))
      return this.shared.charge(buckets, costs);
    const name = nameOf(b);
    let lease = this.leases.get(name);
    const now = this.now();
    if (lease && !lease.fetching && now >= lease.tat) {
      this.end(lease);
      lease = undefined;
    }
    if (lease && lease.queue.length === 0) {
      const result = this.spend(lease, costs, now, now < lease.deniedUntil);
      if (result) return result;
    }
    const held = lease ?? { bucket: b, tokens: 0, tat: 0, deniedUntil: 0, queue: [], fetching: false };
    this.remember(name, held);
    return new Promise((resolve, reject) => {
      held.queue.push({ costs, total, resolve, reject });
      if (!held.fetching) this.fetch(held);
    });
  }

  /**
   * Spends the lease on the calls in order. All fit: admitted. Otherwise, when `refuse` (the shared bucket has nothing
   * more now), the prefix that fits is admitted and the rest refused; else undefined (fetch more first).
   */
  private spend(lease: Lease, costs: readonly number[], now: number, refuse: boolean): ChargeResult | undefined {
    let need = 0;
    let admitted = 0;
    for (const c of costs) {
      if (need + c > lease.tokens) break;
      need += c;
      admitted++;
    }
    if (admitted < costs.length && !refuse) return undefined;
    lease.tokens -= need;
    const { params, scope } = lease.bucket;
    const interval = 1000 / params.ratePerSec;
    const tau = params.burst * interval;
    const state: ScopeState = {
      scope,
      limit: params.burst,
      remaining: Math.min(params.burst, Math.max(0, Math.floor((tau - (lease.tat - now)) / interval) + lease.tokens)),
      resetMs: Math.max(0, Math.ceil(lease.tat - now)),
    };
    if (admitted === costs.length) return { admitted, scopes: [state] };
    const cost = costs[admitted] as number;
    // The missing tokens come back at the bucket's rate from when the backend last had none.
    const retryAfterMs = Math.max(1, Math.ceil(lease.deniedUntil - now + (cost - lease.tokens - 1) * interval));
    return { admitted, scopes: [state], denied: { scope, retryAfterMs, cost } };
  }

  /**
   * One lease for the calls waiting on a bucket: unit charges on the shared bucket for what they need, at least a
   * lease's size; the granted prefix joins what the lease still holds and serves the waiters in order. A waiter the
   * bucket had no token for is refused; one that arrived meanwhile waits for the next fetch.
   */
  private fetch(lease: Lease): void {
    lease.fetching = true;
    const demand = lease.queue.reduce((a, w) => a + w.total, 0);
    const sent = this.now();
    this.shared.charge([lease.bucket], new Array<number>(Math.max(this.leaseSize(lease.bucket), demand)).fill(1)).then(
      (r) => {
        lease.fetching = false;
        lease.tokens += r.admitted;
        // At least 1 ms: the backend reports whole milliseconds, and a bucket that refills a lease faster (1e9/s:
        // Redis's TAT cannot even hold the charge) would otherwise end every lease at once. The cost: a lease may be
        // spent up to 1 ms after its bucket was full again, less than 1 ms of the bucket's refill.
        lease.tat = sent + Math.max(1, r.scopes[0]?.resetMs ?? 0);
        lease.deniedUntil = r.denied ? sent + r.denied.retryAfterMs : 0;
        const now = this.now();
        while (lease.queue.length > 0) {
          const w = lease.queue[0] as Waiter;
          const result = this.spend(lease, w.costs, now, now < lease.deniedUntil);
          if (!result) break;
          lease.queue.shift();
          w.resolve(result);
        }
        if (lease.queue.length > 0) this.fetch(lease);
      },
      (err: unknown) => {
        lease.fetching = false;
        for (const w of lease.queue.splice(0)) w.reject(err);
      },
    );
  }

  /** Ends a lease: unspent tokens worth at least 1 ms of refill go back to the shared bucket (best effort). */
  private end(lease: Lease): void {
    this.leases.delete(nameOf(lease.bucket));
    const left = lease.tokens;
    lease.tokens = 0;
    if (left > 0 && this.shared.debit && (left * 1000) / lease.bucket.params.ratePerSec >= 1)
      this.shared.debit(lease.bucket, -left).catch(() => undefined);
  }

  private remember(name: string, lease: Lease): void {
    this.leases.delete(name);
    this.leases.set(name, lease);
    if (this.leases.size > this.maxBuckets) {
      const oldest = this.leases.values().next().value as Lease;
      if (!oldest.fetching) this.end(oldest);
    }
  }

  /** Tokens held unspent for a bucket (tests). */
  heldFor(b: ScopeBucket): number {
    return this.leases.get(nameOf(b))?.tokens ?? 0;
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
