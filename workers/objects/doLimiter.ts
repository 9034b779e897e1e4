import type { ChargeResult, RateLimiter, ScopeBucket } from '../../gateway/ratelimit/types.ts';
import type { DurableObjectNamespace } from '../types.ts';
import { callObject } from './doCall.ts';

/**
 * RateLimiter over RateBucketObject: the request's bucket names the object (`key:<id>` or `ip:<addr>`), so each key
 * has its own serialised object. The gateway wraps it in FallbackLimiter, so the configured fail modes apply when
 * the object is slow or down.
 */
export class DurableObjectLimiter implements RateLimiter {
  constructor(private readonly ns: DurableObjectNamespace) {}

  charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    const first = buckets[0];
    const name = first ? `${first.scope}:${first.id}` : 'none';
    return callObject<ChargeResult>(this.ns, name, '/charge', { buckets, costs });
  }

  async debit(bucket: ScopeBucket, tokens: number): Promise<void> {
    await callObject(this.ns, `${bucket.scope}:${bucket.id}`, '/debit', { buckets: [bucket], costs: [tokens] });
  }
}
