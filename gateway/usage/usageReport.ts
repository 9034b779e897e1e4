import type { UsageCounts } from './types.ts';

/** The longest window a report covers (the memory store keeps 35 days, Redis 40). */
export const MAX_USAGE_DAYS = 35;
/** The window when the caller names none. */
export const DEFAULT_USAGE_DAYS = 30;

/** One day of a report: its totals and the same per method. */
export interface UsageDay extends UsageCounts {
  date: string;
  methods: Record<string, UsageCounts>;
}

/** What GET /usage (key holder) and GET /keys/:id/usage (admin) answer. */
export interface UsageReport {
  keyId: string;
  tier: string;
  /** First and last day covered (UTC, inclusive). */
  from: string;
  to: string;
  total: UsageCounts;
  /** Oldest first, one entry per day of the window (days without calls have zeros). */
  days: UsageDay[];
}

/**
 * The `days` query parameter: absent → 30, else an integer in [1, 35]; anything else is an error message naming it.
 */
export function parseUsageDays(raw: string | undefined): number | string {
  if (raw === undefined || raw === '') return DEFAULT_USAGE_DAYS;
  const n = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_USAGE_DAYS) return `days: expected an integer in [1, ${MAX_USAGE_DAYS}]`;
  return n;
}

/** Builds the report from the recorder's per-day cells (oldest first). */
export function usageReport(keyId: string, tier: string, cells: { day: string; methods: Map<string, UsageCounts> }[]): UsageReport {
  const total = { calls: 0, computeUnits: 0, refused: 0 };
  const days = cells.map(({ day, methods }) => {
    const d: UsageDay = { date: day, calls: 0, computeUnits: 0, refused: 0, methods: {} };
    for (const [m, c] of [...methods].sort(([a], [b]) => (a < b ? -1 : 1))) {
      d.methods[m] = { ...c };
      d.calls += c.calls;
      d.computeUnits += c.computeUnits;
      d.refused += c.refused;
    }
    total.calls += d.calls;
    total.computeUnits += d.computeUnits;
    total.refused += d.refused;
    return d;
  });
  return { keyId, tier, from: cells[0]?.day ?? '', to: cells.at(-1)?.day ?? '', total, days };
}
