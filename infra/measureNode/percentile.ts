/**
 * Nearest-rank percentile (the definition the seed's tables use): the smallest value such that at least `p` percent
 * of the values are less than or equal to it, i.e. the value at rank ceil(p/100 * n) of the sorted list. No
 * interpolation, so the result is always one of the measured values. Null for an empty list.
 */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}
