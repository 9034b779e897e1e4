/** Percentiles of latency samples, in milliseconds rounded for printing. */

/** p50/p95/p99/max/mean of `samples` (ms). */
export function summarize(samples: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { n: s.length, p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), max: r(s[s.length - 1] ?? 0), mean: r(mean) };
}

/** Rounds to `digits` decimals. */
export const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
