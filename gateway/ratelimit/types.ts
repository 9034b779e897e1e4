import type { BucketParams } from '../config/types.ts';

/** The dimension a bucket limits. `key`: one API key; `ip`: one keyless client address (/64 for IPv6). */
export type ScopeName = 'key' | 'ip';

/** One bucket to charge: its scope, its identity within the scope, and its parameters. */
export interface ScopeBucket {
  scope: ScopeName;
  id: string;
  params: BucketParams;
}

/** The state of one bucket after a decision. */
export interface ScopeState {
  scope: ScopeName;
  limit: number;
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * The outcome of charging a request's calls. Calls are admitted in order while every bucket has room (a prefix);
 * the first call that does not fit and all after it are refused.
 */
export interface ChargeResult {
  admitted: number;
  scopes: ScopeState[];
  /** Set when some call was refused: the bucket that refused it and when its cost will fit. */
  denied?: { scope: ScopeName; retryAfterMs: number; cost: number };
  /** Set when the shared backend failed and the scopes' fail modes decided instead. */
  fallback?: boolean;
}

/**
 * A rate limiter backend: charges the costs of a request's calls against all its buckets atomically (all buckets
 * are deducted together, or the call is refused). Memory, Redis and (later) Durable Object implementations.
 */
export interface RateLimiter {
  charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult>;
  /**
   * Takes up to `tokens` unit tokens from one bucket at once (a lease): `admitted` is what it granted, `denied` set
   * when it granted less; the scope's `resetMs` is exact (fractional), not rounded up like a charge's.
   */
  lease?(bucket: ScopeBucket, tokens: number): Promise<ChargeResult>;
  /** The decision when it needs no round trip to the backend (tokens already leased); undefined: call `charge`. */
  chargeNow?(buckets: readonly ScopeBucket[], costs: readonly number[]): ChargeResult | undefined;
  /**
   * Charges `tokens` to a bucket unconditionally (the bucket may go past empty, refusing calls until it refills): what
   * an instance admitted on its own while this backend was unreachable, or a delivered notification's cost.
   */
  debit?(bucket: ScopeBucket, tokens: number): Promise<void>;
  /**
   * Makes the first real decision as fast as the others (connection, scripts loaded, code paths run once), so a
   * fresh instance's first callers are not the ones who pay for it. Called before the gateway listens.
   */
  warm?(): Promise<void>;
  close?(): Promise<void>;
}
