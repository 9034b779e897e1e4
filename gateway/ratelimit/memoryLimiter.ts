import { gcraCharge, gcraDebit, gcraLease } from './gcra.ts';
import type { ChargeResult, RateLimiter, ScopeBucket } from './types.ts';

/** Options of the in-process limiter. */
export interface MemoryLimiterOptions {
  /** Clock in ms (injectable for tests). */
  now?: () => number;
  /** Above this many buckets, buckets that are full again are dropped. */
  maxBuckets?: number;
}

/**
 * In-process GCRA limiter: exact for one instance, and the local fallback bucket when Redis is down. Buckets whose
 * TAT is in the past are full and carry no information, so they are swept when the map grows.
 */
export class MemoryLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxBuckets: number;

  constructor({ now = () => Date.now(), maxBuckets = 100_000 }: MemoryLimiterOptions = {}) {
    this.now = now;
    this.maxBuckets = maxBuckets;
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    return this.chargeSync(buckets, costs);
  }

  /** Synchronous form (the fallback path uses it). */
  chargeSync(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult {
    const now = this.now();
    const names = buckets.map((b) => `${b.scope}:${b.id}`);
    const tats = names.map((n) => this.tats.get(n));
    const result = gcraCharge(buckets, costs, now, tats);
    names.forEach((n, i) => this.tats.set(n, tats[i] as number));
    if (this.tats.size > this.maxBuckets) this.sweep(now);
    return result;
  }

  async lease(bucket: ScopeBucket, tokens: number): Promise<ChargeResult> {
    const name = `${bucket.scope}:${bucket.id}`;
    const tats = [this.tats.get(name)];
    const result = gcraLease(bucket, tokens, this.now(), tats);
    this.tats.set(name, tats[0] as number);
    return result;
  }

  async debit(bucket: ScopeBucket, tokens: number): Promise<void> {
    const name = `${bucket.scope}:${bucket.id}`;
    this.tats.set(name, gcraDebit(bucket.params, tokens, this.now(), this.tats.get(name)));
  }

  private sweep(now: number): void {
    for (const [name, tat] of this.tats) if (tat <= now) this.tats.delete(name);
  }
}
