/**
 * The small metric interfaces components depend on (Lodestar style: `metrics?.importBlocks.inc()`), so a component
 * never imports prom-client and a test can read values back from a real registry. prom-client's Gauge, Counter and
 * Histogram satisfy them structurally.
 */

/** A value that goes up and down (head number, queue length). */
export interface Gauge {
  set(value: number): void;
  inc(value?: number): void;
  dec(value?: number): void;
}

/** A monotonically increasing count (blocks imported, gas). */
export interface Counter {
  inc(value?: number): void;
}

/** A distribution of observations (latencies in seconds, batch sizes); `startTimer()` returns a stop function. */
export interface Histogram {
  observe(value: number): void;
  startTimer(): () => number;
}
