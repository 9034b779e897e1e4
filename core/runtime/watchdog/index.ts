/**
 * Main-thread handle of the watchdog thread: `init()` starts it and waits until it watches, `isShedding()` reads the
 * load-shedding flag from shared memory (no message needed), `close()` stops it. The loop-lag probe must write the
 * same heartbeat (`new LoopLagProbe(opts, { heartbeat })`).
 */
import type { Worker } from 'node:worker_threads';
import type { LogLevel } from '../../log/types.ts';
import { SharedHeartbeat } from '../heartbeat.ts';
import { SMALL_THREAD_LIMITS, spawnTsWorker, waitForReady } from '../spawnTsWorker.ts';
import { resolveWatchdogOptions, type WatchdogOptions } from './options.ts';
import type { WatchdogMessage, WatchdogWorkerData } from './types.ts';

export { defaultWatchdogOptions, resolveWatchdogOptions, type WatchdogOptions } from './options.ts';
export { WatchdogMonitor, type WatchdogAction } from './monitor.ts';

export interface WatchdogConfig extends Partial<WatchdogOptions> {
  /** fd for the worker's own JSON log lines (default 1, stdout). */
  logFd?: number;
  logLevel?: LogLevel;
  logFormat?: 'json' | 'terminal';
}

/** The watchdog thread (one per process). */
export class Watchdog {
  private worker: Worker | undefined;
  private readonly options: WatchdogOptions;
  private readonly logFd: number;
  private readonly logLevel: LogLevel;
  private readonly logFormat: 'json' | 'terminal';
  private readonly listeners = new Set<(msg: WatchdogMessage) => void>();

  constructor(
    readonly heartbeat: SharedHeartbeat = new SharedHeartbeat(),
    { logFd = 1, logLevel = 'info', logFormat = 'json', ...thresholds }: WatchdogConfig = {},
  ) {
    this.options = resolveWatchdogOptions(thresholds);
    this.logFd = logFd;
    this.logLevel = logLevel;
    this.logFormat = logFormat;
  }

  /** Starts the thread; resolves once it is watching. The thread is unref'd: it never keeps the process alive. */
  async init(): Promise<void> {
    if (this.worker) return;
    const data: WatchdogWorkerData = {
      heartbeat: this.heartbeat.buffer,
      options: this.options,
      logFd: this.logFd,
      logLevel: this.logLevel,
      logFormat: this.logFormat,
    };
    const worker = spawnTsWorker(new URL('./worker.ts', import.meta.url), data, {
      name: 'xone-watchdog',
      resourceLimits: SMALL_THREAD_LIMITS,
    });
    this.worker = worker;
    worker.on('message', (msg: WatchdogMessage) => this.listeners.forEach((l) => l(msg)));
    await waitForReady(worker);
    worker.unref();
  }

  /** True while the main loop was found late and has not yet recovered: refuse new expensive work (-32005). */
  isShedding(): boolean {
    return this.heartbeat.isShedding();
  }

  /** Subscribes to stall/recovered notices (delivered only when the main loop runs again). */
  onMessage(listener: (msg: WatchdogMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
