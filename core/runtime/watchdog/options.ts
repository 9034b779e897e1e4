/** Watchdog thresholds (seeds, "Liveness"): 100 ms late → warn and shed, 2 s → one error, 10 s → exit non-zero. */
export interface WatchdogOptions {
  /** Lateness that sets load shedding and logs a warning (default 100 ms). */
  warnMs: number;
  /** Lateness that logs one error line per stall (default 2000 ms). */
  errorMs: number;
  /** Lateness that ends the whole process with a non-zero status (default 10000 ms; 0 disables). */
  exitMs: number;
  /** The probe's interval: a beat is expected this often, so lateness = now - lastBeat - probeIntervalMs (50 ms). */
  probeIntervalMs: number;
  /** How often the watchdog looks at the heartbeat (default 20 ms). */
  checkEveryMs: number;
}

export const defaultWatchdogOptions: WatchdogOptions = {
  warnMs: 100,
  errorMs: 2000,
  exitMs: 10_000,
  probeIntervalMs: 50,
  checkEveryMs: 20,
};

/**
 * Defaults overlaid with the given thresholds; an `undefined` field keeps its default (a plain spread would let it
 * erase the default and disable the check). Throws a RangeError on a negative or non-finite value or on thresholds
 * out of order.
 */
export function resolveWatchdogOptions(partial: Partial<WatchdogOptions> = {}): WatchdogOptions {
  const out = { ...defaultWatchdogOptions };
  for (const key of Object.keys(out) as (keyof WatchdogOptions)[]) {
    const v = partial[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new RangeError(`watchdog ${key} must be a finite number >= 0, got ${v}`);
    out[key] = v;
  }
  if (out.errorMs < out.warnMs || (out.exitMs > 0 && out.exitMs < out.errorMs)) {
    throw new RangeError(`watchdog thresholds must be ordered warnMs <= errorMs <= exitMs, got ${out.warnMs}/${out.errorMs}/${out.exitMs}`);
  }
  if (out.checkEveryMs <= 0) throw new RangeError('watchdog checkEveryMs must be > 0');
  return out;
}
