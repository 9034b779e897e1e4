import type { FailMode } from '../config/types.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import { withDeadline } from '../async/withDeadline.ts';
import { MemoryLimiter } from './memoryLimiter.ts';
import type { ChargeResult, RateLimiter, ScopeBucket, ScopeName } from './types.ts';

/** Options of the fail-mode wrapper. */
export interface FallbackLimiterOptions {
  failMode: Record<ScopeName, FailMode>;
  /** A decision slower than this counts as a backend failure. */
  timeoutMs: number;
  metrics: GatewayMetrics;
  /** After a failure, skip the shared backend this long instead of paying its timeout on every call. */
  cooldownMs?: number;
  now?: () => number;
}

/** How long a refusal from a fail-closed scope asks the client to wait. */
const CLOSED_RETRY_MS = 1_000;

/**
 * Wraps the shared limiter (Redis) and decides per scope when it fails or is too slow: `open` admits, `closed`
 * refuses, `local` charges an in-process bucket of the same parameters (a per-instance approximation, so N instances
 * admit up to N× the shared limit while Redis is away). Every fallback decision increments
 * xone_gateway_ratelimit_backend_failures_total{scope,mode}.
 */
export class FallbackLimiter implements RateLimiter {
  private readonly local: MemoryLimiter;
  private downUntil = 0;
  private readonly now: () => number;

  constructor(
    private readonly shared: RateLimiter,
    private readonly opts: FallbackLimiterOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    this.local = new MemoryLimiter({ now: this.now });
  }

  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    if (this.now() >= this.downUntil) {
      try {
        return await withDeadline(
          this.shared.charge(buckets, costs),
          this.opts.timeoutMs,
          () => new Error(`limiter backend slower than ${this.opts.timeoutMs} ms`),
        );
      } catch {
        this.downUntil = this.now() + (this.opts.cooldownMs ?? 250);
      }
    }
    return this.decideLocally(buckets, costs);
  }

  private decideLocally(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult {
    for (const b of buckets) this.opts.metrics.limiterBackendFailure(b.scope, this.opts.failMode[b.scope]);
    const closed = buckets.find((b) => this.opts.failMode[b.scope] === 'closed');
    if (closed) {
      const scopes = buckets.map((b) => ({ scope: b.scope, limit: b.params.burst, remaining: 0, resetMs: CLOSED_RETRY_MS }));
      return { admitted: 0, scopes, denied: { scope: closed.scope, retryAfterMs: CLOSED_RETRY_MS, cost: costs[0] ?? 0 }, fallback: true };
    }
    const localBuckets = buckets.filter((b) => this.opts.failMode[b.scope] === 'local');
    if (localBuckets.length === 0) {
      return {
        admitted: costs.length,
        scopes: buckets.map((b) => ({ scope: b.scope, limit: b.params.burst, remaining: b.params.burst, resetMs: 0 })),
        fallback: true,
      };
    }
    return { ...this.local.chargeSync(localBuckets, costs), fallback: true };
  }

  async close(): Promise<void> {
    await this.shared.close?.();
  }
}
