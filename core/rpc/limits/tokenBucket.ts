/**
 * Per-client-IP token buckets for the node's own rate limit (EIP-1474 -32005). Off unless configured; loopback
 * clients are exempt unless `includeLoopback`. The table is bounded: least recently seen clients are dropped.
 */
import { type RateLimitOptions } from '../options.ts';

interface Bucket {
  tokens: number;
  updated: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

const OK: TakeResult = { ok: true };

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxClients: number;

  constructor(
    private readonly opts: RateLimitOptions,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.maxClients = opts.maxClients ?? 100_000;
  }

  /** Takes `n` tokens for the client or says how long until enough are back. */
  take(ip: string, n: number): TakeResult {
    if (!this.opts.includeLoopback && isLoopback(ip)) return OK;
    const now = this.nowMs();
    let b = this.buckets.get(ip);
    if (b) {
      this.buckets.delete(ip); // re-insert below: Map order = recency
      b.tokens = Math.min(this.opts.burst, b.tokens + ((now - b.updated) / 1000) * this.opts.ratePerSecond);
      b.updated = now;
    } else {
      b = { tokens: this.opts.burst, updated: now };
      if (this.buckets.size >= this.maxClients) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(ip, b);
    if (b.tokens >= n) {
      b.tokens -= n;
      return OK;
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((n - b.tokens) / this.opts.ratePerSecond)) };
  }
}
