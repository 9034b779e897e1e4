/** One key's use of one method on one UTC day. */
export interface UsageCounts {
  /** Calls answered (admitted or not). */
  calls: number;
  /** Compute units charged: the method weights of the admitted calls (`rateLimit.costs`). */
  computeUnits: number;
  /** Calls the rate limiter refused (-32005). */
  refused: number;
}

/** A change to one (key, day, method) cell. */
export interface UsageDelta extends UsageCounts {
  keyId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  method: string;
}

/** Per day (`YYYY-MM-DD`), per method. */
export type UsageByDay = Map<string, Map<string, UsageCounts>>;

/**
 * Where usage lives: memory (one instance, tests, Workers without a store), Redis shared by every instance (kept as
 * long as the keys: the documented Redis config appends every write to its AOF). Adds are sums, so instances that
 * flush the same cell never overwrite each other.
 */
export interface UsageStore {
  add(deltas: readonly UsageDelta[]): Promise<void>;
  read(keyId: string, days: readonly string[]): Promise<UsageByDay>;
}

/** A write that reached the store for some deltas only: `unwritten` are kept for the next flush (no double count). */
export class UsageWriteError extends Error {
  constructor(
    readonly unwritten: readonly UsageDelta[],
    cause: unknown,
  ) {
    super(`usage write failed for ${unwritten.length} cells`, { cause });
    this.name = 'UsageWriteError';
  }
}

const DAY_MS = 86_400_000;
/** The day `utcDay` answered last, as [start, start + 1 day) and its text. */
let lastDay = { start: NaN, text: '' };

/**
 * The UTC day of an epoch-ms instant. The recorder asks once per request: the last day's text is kept, so that is a
 * range check instead of a Date and an ISO string each time.
 */
export function utcDay(ms: number): string {
  if (ms >= lastDay.start && ms < lastDay.start + DAY_MS) return lastDay.text;
  const text = new Date(ms).toISOString().slice(0, 10);
  if (Number.isFinite(ms)) lastDay = { start: ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS), text };
  return text;
}

/** The `n` UTC days ending with the day of `ms`, oldest first. */
export function lastDays(ms: number, n: number): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(utcDay(ms - i * 86_400_000));
  return out;
}

/** Adds `b` into `a`. */
export function addCounts(a: UsageCounts, b: UsageCounts): void {
  a.calls += b.calls;
  a.computeUnits += b.computeUnits;
  a.refused += b.refused;
}
