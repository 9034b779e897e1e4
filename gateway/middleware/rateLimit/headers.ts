import type { ScopeState } from '../../ratelimit/types.ts';

/**
 * IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each bucket with its
 * quota `q` and the window `w` (seconds to refill from empty); `RateLimit` gives what remains `r` and the seconds
 * `t` until the bucket is full again.
 */
export function rateLimitHeaders(scopes: readonly ScopeState[], ratePerSec: number): Record<string, string> {
  const policyOf = (s: ScopeState) => `"${s.scope}";q=${s.limit};w=${Math.max(1, Math.ceil(s.limit / ratePerSec))}`;
  const stateOf = (s: ScopeState) => `"${s.scope}";r=${s.remaining};t=${Math.ceil(s.resetMs / 1000)}`;
  // One bucket per call is every request today: no arrays to map and join on the hot path.
  if (scopes.length === 1) return { 'RateLimit-Policy': policyOf(scopes[0] as ScopeState), RateLimit: stateOf(scopes[0] as ScopeState) };
  if (scopes.length === 0) return {};
  return { 'RateLimit-Policy': scopes.map(policyOf).join(', '), RateLimit: scopes.map(stateOf).join(', ') };
}

/** Retry-After in whole seconds (at least 1: a 0 would invite an immediate retry that fails again). */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));
