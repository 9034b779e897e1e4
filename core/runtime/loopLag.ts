/**
 * The loop-lag probe (seeds, "Liveness"): a timer that should wake every 50 ms measures how late it woke. The value
 * goes to the `xone_loop_lag_ms` gauge and the `xone_loop_lag_seconds` histogram; a wake more than 100 ms late logs
 * `event loop stall <ms>`; every wake writes the heartbeat the watchdog thread reads.
 */
import type { Logger } from '../log/types.ts';
import type { Gauge, Histogram } from '../metrics/types.ts';
import type { SharedHeartbeat } from './heartbeat.ts';

export interface LoopLagOptions {
  /** How often the probe should wake (default 50 ms). */
  intervalMs?: number;
  /** Lateness that counts as a stall and is logged (default 100 ms). */
  stallMs?: number;
}

export interface LoopLagDeps {
  logger?: Logger;
  metrics?: { loopLagMs: Gauge; loopLagSeconds: Histogram };
  heartbeat?: SharedHeartbeat;
}

/** Measures main-loop lateness; `start()` begins, `close()` stops (the timer is unref'd: it never keeps a process up). */
export class LoopLagProbe {
  private readonly intervalMs: number;
  private readonly stallMs: number;
  private timer: NodeJS.Timeout | undefined;
  private expectedAt = 0;
  private last = 0;
  private max = 0;

  constructor(
    { intervalMs = 50, stallMs = 100 }: LoopLagOptions = {},
    private readonly deps: LoopLagDeps = {},
  ) {
    this.intervalMs = intervalMs;
    this.stallMs = stallMs;
  }

  /** Starts the probe and writes the first heartbeat. */
  start(): void {
    if (this.timer) return;
    this.deps.heartbeat?.beat();
    this.schedule();
  }

  /** Lateness of the last wake, ms. */
  lastLagMs(): number {
    return this.last;
  }

  /** Largest lateness since start, ms. */
  maxLagMs(): number {
    return this.max;
  }

  /** Stops the probe and tells the watchdog it has stopped (so it does not read the silence as a stall). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.deps.heartbeat?.stop();
  }

  private schedule(): void {
    this.expectedAt = performance.now() + this.intervalMs;
    this.timer = setTimeout(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  private tick(): void {
    const lag = Math.max(0, performance.now() - this.expectedAt);
    this.deps.heartbeat?.beat();
    this.last = lag;
    if (lag > this.max) this.max = lag;
    this.deps.metrics?.loopLagMs.set(lag);
    this.deps.metrics?.loopLagSeconds.observe(lag / 1000);
    if (lag > this.stallMs) this.deps.logger?.warn(`event loop stall ${Math.round(lag)} ms`, { lag_ms: Math.round(lag) });
    this.schedule();
  }
}
