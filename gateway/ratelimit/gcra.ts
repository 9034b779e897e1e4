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
