import type { Redis } from 'ioredis';
import type { ChargeResult, RateLimiter, ScopeBucket } from '../../ratelimit/types.ts';
import { GCRA_DEBIT_LUA, GCRA_LEASE_LUA, GCRA_LUA } from './redisLimiterScript.ts';

type GcraRedis = Redis & {
  xoneGcra(...args: (string | number)[]): Promise<string[]>;
  xoneGcraDebit(...args: (string | number)[]): Promise<number>;
  xoneGcraLease(...args: (string | number)[]): Promise<string[]>;
};

/**
 * The shared limiter: every instance charges the same Redis keys through one Lua script (one round trip per
 * request, whatever the batch size). Failures surface as rejections; FallbackLimiter applies the fail modes.
 */
export class RedisLimiter implements RateLimiter {
  private readonly redis: GcraRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    if (!('xoneGcra' in redis)) redis.defineCommand('xoneGcra', { lua: GCRA_LUA });
    if (!('xoneGcraDebit' in redis)) redis.defineCommand('xoneGcraDebit', { lua: GCRA_DEBIT_LUA, numberOfKeys: 1 });
    if (!('xoneGcraLease' in redis)) redis.defineCommand('xoneGcraLease', { lua: GCRA_LEASE_LUA, numberOfKeys: 1 });
    this.redis = redis as GcraRedis;
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    const keys = buckets.map((b) => this.keyOf(b));
    const args: (string | number)[] = [buckets.length];
    for (const b of buckets) {
      const interval = 1000 / b.params.ratePerSec;
      args.push(interval, b.params.burst * interval);
    }
    args.push(...costs);
    const out = await this.redis.xoneGcra(keys.length, ...keys, ...args);
    const admitted = Number(out[0]);
    const deniedIdx = Number(out[1]);
    const scopes = buckets.map((b, s) => ({
      scope: b.scope,
      limit: b.params.burst,
      remaining: Math.max(0, Number(out[3 + 2 * s])),
      resetMs: Math.max(0, Number(out[4 + 2 * s])),
    }));
    if (deniedIdx === 0) return { admitted, scopes };
    const refusedBucket = buckets[deniedIdx - 1] as ScopeBucket;
    return { admitted, scopes, denied: { scope: refusedBucket.scope, retryAfterMs: Number(out[2]), cost: costs[admitted] ?? 0 } };
  }

  async lease(bucket: ScopeBucket, tokens: number): Promise<ChargeResult> {
    const interval = 1000 / bucket.params.ratePerSec;
    const out = await this.redis.xoneGcraLease(this.keyOf(bucket), interval, bucket.params.burst * interval, tokens);
    const admitted = Number(out[0]);
    const scopes = [
      { scope: bucket.scope, limit: bucket.params.burst, remaining: Math.max(0, Number(out[2])), resetMs: Math.max(0, Number(out[3])) },
    ];
    if (admitted >= tokens) return { admitted, scopes };
    return { admitted, scopes, denied: { scope: bucket.scope, retryAfterMs: Number(out[1]), cost: 1 } };
  }

  private keyOf(b: ScopeBucket): string {
    return `${this.prefix}rl:${b.scope}:${b.id}`;
  }

  /**
   * Runs the scripts once on a bucket no client can have (client ids are addresses and key ids): ioredis sends a
   * script's whole text (EVAL) the first time on each connection, and the code around it is cold until it ran.
   */
  async warm(): Promise<void> {
    const bucket: ScopeBucket = { scope: 'ip', id: '(warm-up)', params: { ratePerSec: 1, burst: 1 } };
    // No costs, a lease of 0: nothing is admitted and nothing written. A debit of 0 writes the key with a 1 s TTL.
    await Promise.all([this.charge([bucket], []), this.lease(bucket, 0), this.debit(bucket, 0)]);
  }

  async debit(bucket: ScopeBucket, tokens: number): Promise<void> {
    await this.redis.xoneGcraDebit(this.keyOf(bucket), 1000 / bucket.params.ratePerSec, tokens);
  }
}
