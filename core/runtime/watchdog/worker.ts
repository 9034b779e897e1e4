/**
 * The watchdog thread. It must act while the main loop is blocked, so it never relies on the main thread: it logs
 * with synchronous writes to a file descriptor (a worker's `process.stdout` is relayed by the main thread and would
 * stay silent), and it ends the process by sending SIGKILL to its own pid, because in a worker `process.exit` ends
 * only the worker and `process.abort()` is refused, and a SIGTERM is handled by the blocked main loop, i.e. never
 * (docs/decisions/0015-watchdog-exit-sigkill.md).
 */
import { parentPort } from 'node:worker_threads';
import { createLogger } from '../../log/pinoLogger.ts';
import { terminalDestination } from '../../log/terminalLines.ts';
import { startHeapDiag } from '../heapDiag.ts';
import { SharedHeartbeat, sharedClockUs } from '../heartbeat.ts';
import { tsWorkerData } from '../spawnTsWorker.ts';
import { WatchdogMonitor } from './monitor.ts';
import type { WatchdogMessage, WatchdogWorkerData } from './types.ts';

startHeapDiag('watchdog');
const data = tsWorkerData<WatchdogWorkerData>();
const log = createLogger({
  destination: data.logFormat === 'terminal' ? terminalDestination(data.logFd) : data.logFd,
  level: data.logLevel,
}).child({ thread: 'watchdog' });
const heartbeat = new SharedHeartbeat(data.heartbeat);
const monitor = new WatchdogMonitor(heartbeat, data.options);
const post = (msg: WatchdogMessage): void => parentPort?.postMessage(msg);

setInterval(() => {
  const action = monitor.check(sharedClockUs());
  const lateMs = 'lateMs' in action ? Math.round(action.lateMs) : 0;
  switch (action.kind) {
    case 'warn':
      log.warn('event loop late: shedding load', { late_ms: lateMs });
      post({ type: 'stall', lateMs });
      break;
    case 'error':
      log.error('event loop blocked', { late_ms: lateMs });
      break;
    case 'exit':
      log.fatal('event loop blocked too long: killing the process', { late_ms: lateMs, exit_after_ms: data.options.exitMs });
      process.kill(process.pid, 'SIGKILL');
      break;
    case 'recovered':
      log.info('event loop recovered: shedding off', { stalled_ms: Math.round(action.stalledMs) });
      post({ type: 'recovered', stalledMs: Math.round(action.stalledMs) });
      break;
  }
}, data.options.checkEveryMs);

post({ type: 'ready' });
