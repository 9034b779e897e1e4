/**
 * The watchdog's decision logic, apart from its thread so it can be tested with a fake clock: given the time and the
 * last heartbeat, it says what to do. One stall episode goes ok → shedding (warn) → error (once) → exit; a beat that
 * arrives in time again ends the episode and clears shedding.
 */
import type { SharedHeartbeat } from '../heartbeat.ts';
import type { WatchdogOptions } from './options.ts';

/** What the watchdog must do after one check. */
export type WatchdogAction =
  | { kind: 'none' }
  | { kind: 'warn'; lateMs: number }
  | { kind: 'error'; lateMs: number }
  | { kind: 'exit'; lateMs: number }
  | { kind: 'recovered'; stalledMs: number };

/** Tracks one heartbeat and turns lateness into actions; it writes the shedding flag itself. */
export class WatchdogMonitor {
  private shedding = false;
  private errored = false;
  private exiting = false;
  private worstMs = 0;

  constructor(
    private readonly heartbeat: SharedHeartbeat,
    private readonly options: WatchdogOptions,
  ) {}

  /** Evaluates lateness at `nowUs` (shared-clock microseconds). */
  check(nowUs: bigint): WatchdogAction {
    const beat = this.heartbeat.lastBeatUs();
    if (this.exiting) return { kind: 'none' };
    if (beat === 0n) {
      // The probe has not started, or was stopped on purpose: nothing to judge; drop any shedding left over.
      if (this.shedding) [this.shedding, this.errored, this.worstMs] = [false, false, 0];
      this.heartbeat.setShedding(false);
      return { kind: 'none' };
    }
    const lateMs = Math.max(0, Number(nowUs - beat) / 1000 - this.options.probeIntervalMs);
    const { warnMs, errorMs, exitMs } = this.options;
    if (lateMs < warnMs) {
      if (!this.shedding) return { kind: 'none' };
      this.shedding = false;
      this.errored = false;
      this.heartbeat.setShedding(false);
      const stalledMs = this.worstMs;
      this.worstMs = 0;
      return { kind: 'recovered', stalledMs };
    }
    this.worstMs = Math.max(this.worstMs, lateMs);
    if (exitMs > 0 && lateMs >= exitMs) {
      this.exiting = true;
      return { kind: 'exit', lateMs };
    }
    if (!this.shedding) {
      this.shedding = true;
      this.heartbeat.setShedding(true);
      this.heartbeat.countStall();
      return { kind: 'warn', lateMs };
    }
    if (!this.errored && lateMs >= errorMs) {
      this.errored = true;
      return { kind: 'error', lateMs };
    }
    return { kind: 'none' };
  }
}
