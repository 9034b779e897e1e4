/**
 * Loads the host to a target 1-minute load average with busy-loop processes this bench starts and stops (issue #17:
 * the shared limit is measured "at load 10"; the limiter's failure showed only on a busy host, where decisions are late).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Busy loops started for a load target; `stop` ends exactly these processes. */
export interface BusyLoad {
  /** Processes started (0 when the host was already at the target). */
  started: number;
  /** 1-minute load average when the ramp ended. */
  loadAtReady: number;
  stop(): Promise<void>;
}

/** Runnable tasks right now (/proc/loadavg's 4th field, `running/total`), the instantaneous side of the load average. */
export function runnableNow(): number {
  const field = readFileSync('/proc/loadavg', 'utf8').split(' ')[3] ?? '0/0';
  return Number(field.split('/')[0]);
}

/**
 * Starts `target − current load − ownRunnable` busy loops (at least 0), then waits until the 1-minute load average
 * reaches 90 % of the target or `rampMs` passed (it follows runnable tasks with a 1-minute time constant).
 * `ownRunnable`: processes of the measurement itself that will be busy (they count towards the load).
 */
export async function startBusyLoad(target: number, ownRunnable: number, rampMs: number): Promise<BusyLoad> {
  const n = Math.max(0, Math.round(target - (loadavg()[0] ?? 0) - ownRunnable));
  const procs: ChildProcess[] = [];
  for (let i = 0; i < n; i++) procs.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  const end = Date.now() + rampMs;
  while (n > 0 && Date.now() < end && (loadavg()[0] ?? 0) < target * 0.9) await new Promise((r) => setTimeout(r, 500));
  return {
    started: n,
    loadAtReady: Number((loadavg()[0] ?? 0).toFixed(2)),
    async stop() {
      await Promise.all(
        procs.map((p) => {
          if (p.exitCode !== null || p.signalCode !== null) return undefined;
          const exited = new Promise((r) => p.once('exit', r));
          p.kill('SIGKILL');
          return exited;
        }),
      );
    },
  };
}
