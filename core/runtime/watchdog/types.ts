/** What the main thread hands the watchdog worker (all structured-clonable; the heartbeat memory is shared). */
import type { LogLevel } from '../../log/types.ts';
import type { WatchdogOptions } from './options.ts';

export interface WatchdogWorkerData {
  heartbeat: SharedArrayBuffer;
  options: WatchdogOptions;
  /** File descriptor the worker writes its log lines to, synchronously (1 = stdout). */
  logFd: number;
  logLevel: LogLevel;
  /** `terminal`: readable lines (core/log/terminalLines.ts), as the main thread writes them on a TTY. */
  logFormat: 'json' | 'terminal';
}

/** Messages from the worker: `ready` once it watches (others are informational, for a live main loop). */
export type WatchdogMessage = { type: 'ready' } | { type: 'stall'; lateMs: number } | { type: 'recovered'; stalledMs: number };
