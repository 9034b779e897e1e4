import type { ScopeState } from '../../ratelimit/types.ts';

/**
 * IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each bucket with its
 * quota `q` and the window `w` (seconds to refill from empty); `RateLimit` gives what remains `r` and the seconds
 * `t` until the bucket is full again.
 */
export function rateLimitHeaders(scopes: readonly ScopeState[], ratePerSec: number): Record<string, string> {
  if (scopes.length === 0) return {};
  const policy = scopes.map((s) => `"${s.scope}";q=${s.limit};w=${Math.max(1, Math.ceil(s.limit / ratePerSec))}`).join(', ');
  const state = scopes.map((s) => `"${s.scope}";r=${s.remaining};t=${Math.ceil(s.resetMs / 1000)}`).join(', ');
  return { 'RateLimit-Policy': policy, RateLimit: state };
}

/** Retry-After in whole seconds (at least 1: a 0 would invite an immediate retry that fails again). */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));
