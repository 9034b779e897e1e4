import type { ChargeResult, ScopeBucket } from './types.ts';

/**
 * GCRA (the generic cell rate algorithm), equivalent to a token bucket of `burst` tokens refilled at `ratePerSec`.
 * Each bucket keeps one number, its theoretical arrival time (TAT, ms): a cost c moves it forward by c × interval,
 * and a call fits while TAT − now ≤ burst × interval. The same arithmetic runs in Lua on Redis (redisLimiterScript).
 *
 * `tats` holds the stored TAT per bucket (undefined = fresh); on return it holds the new TATs to store.
 */
export function gcraCharge(
  buckets: readonly ScopeBucket[],
  costs: readonly number[],
  now: number,
  tats: (number | undefined)[],
): ChargeResult {
  const interval = buckets.map((b) => 1000 / b.params.ratePerSec);
  const tau = buckets.map((b, i) => b.params.burst * (interval[i] as number));
  const tat = buckets.map((_, i) => Math.max(tats[i] ?? now, now));
  let admitted = 0;
  let denied: ChargeResult['denied'];
  for (const cost of costs) {
    let refusedBy = -1;
    let retryAfterMs = 0;
    for (let s = 0; s < buckets.length; s++) {
      const next = (tat[s] as number) + cost * (interval[s] as number);
      const over = next - now - (tau[s] as number);
      if (over > 0 && over > retryAfterMs) {
        refusedBy = s;
        retryAfterMs = over;
      }
    }
    if (refusedBy >= 0) {
      denied = { scope: (buckets[refusedBy] as ScopeBucket).scope, retryAfterMs: Math.ceil(retryAfterMs), cost };
      break;
    }
    for (let s = 0; s < buckets.length; s++) tat[s] = (tat[s] as number) + cost * (interval[s] as number);
    admitted++;
  }
  for (let s = 0; s < buckets.length; s++) tats[s] = tat[s];
  const scopes = buckets.map((b, s) => ({
    scope: b.scope,
    limit: b.params.burst,
    remaining: Math.max(0, Math.floor(((tau[s] as number) - ((tat[s] as number) - now)) / (interval[s] as number))),
    resetMs: Math.ceil((tat[s] as number) - now),
  }));
  return denied ? { admitted, scopes, denied } : { admitted, scopes };
}

/** The TAT after charging `tokens` unconditionally (GCRA's debit: the bucket may go past empty). */
export function gcraDebit(params: ScopeBucket['params'], tokens: number, now: number, tat: number | undefined): number {
  return Math.max(tat ?? now, now) + (tokens * 1000) / params.ratePerSec;
}

/**
 * A lease of up to `want` unit tokens in one step (what charging `want` costs of 1 admits, in closed form: a lease of
 * 10 million tokens is one number, not 10 million arguments). `resetMs` is exact, not rounded up: a lease is spent
 * only before the bucket is full again, so its end must be early, never late. `tats[0]` as in gcraCharge.
 */
export function gcraLease(bucket: ScopeBucket, want: number, now: number, tats: (number | undefined)[]): ChargeResult {
  const interval = 1000 / bucket.params.ratePerSec;
  const tau = bucket.params.burst * interval;
  let tat = Math.max(tats[0] ?? now, now);
  const room = leaseRoom(tat, now, interval, tau);
  const granted = Math.max(0, Math.min(want, room));
  tat += granted * interval;
  tats[0] = tat;
  const scopes = [
    {
      scope: bucket.scope,
      limit: bucket.params.burst,
      remaining: Math.max(0, Math.floor((tau - (tat - now)) / interval)),
      resetMs: tat - now,
    },
  ];
  if (granted === want) return { admitted: granted, scopes };
  return {
    admitted: granted,
    scopes,
    denied: { scope: bucket.scope, retryAfterMs: Math.max(1, Math.ceil(tat + interval - now - tau)), cost: 1 },
  };
}

/** Unit tokens that fit in a bucket at `tat` (the largest k with tat + k × interval − now ≤ tau, as gcraCharge decides). */
function leaseRoom(tat: number, now: number, interval: number, tau: number): number {
  let k = Math.floor((now + tau - tat) / interval);
  // The division rounds; settle k on the comparison gcraCharge makes, so both agree on the last token.
  if (tat + (k + 1) * interval - now - tau <= 0) k++;
  else if (k > 0 && tat + k * interval - now - tau > 0) k--;
  return k;
}
