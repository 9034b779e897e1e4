/**
 * The bounds every bucket's parameters must satisfy, wherever they come from (a tier in the config file, a key's
 * `limits` from the admin API or the CLI). A rate of 0, NaN or a string would admit everything (GCRA divides by it);
 * a negative rate refuses everything for decades. Upper bounds keep the arithmetic exact in doubles.
 */
export const BUCKET_BOUNDS = { maxRatePerSec: 1e9, maxBurst: 1e9 } as const;

/** Problems with `{ratePerSec, burst}` at `path` (empty when valid), one `path.field: what` line each. */
export function bucketProblems(v: { ratePerSec?: unknown; burst?: unknown }, path: string): string[] {
  const out: string[] = [];
  const r = v.ratePerSec;
  if (typeof r !== 'number' || !Number.isFinite(r) || r <= 0 || r > BUCKET_BOUNDS.maxRatePerSec)
    out.push(`${path}.ratePerSec: expected a number > 0 and <= ${BUCKET_BOUNDS.maxRatePerSec}`);
  const b = v.burst;
  if (typeof b !== 'number' || !Number.isInteger(b) || b < 1 || b > BUCKET_BOUNDS.maxBurst)
    out.push(`${path}.burst: expected an integer >= 1 and <= ${BUCKET_BOUNDS.maxBurst}`);
  return out;
}
