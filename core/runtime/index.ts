/** Public surface of the runtime: threads, liveness guards, sender recovery, shutdown, the slow-block line. */
export { spawnTsWorker, tsWorkerData, waitForReady, type SpawnTsWorkerOptions } from './spawnTsWorker.ts';
export { SharedHeartbeat, sharedClockUs } from './heartbeat.ts';
export { LoopLagProbe, type LoopLagDeps, type LoopLagOptions } from './loopLag.ts';
export { Watchdog, defaultWatchdogOptions, resolveWatchdogOptions, type WatchdogConfig, type WatchdogOptions } from './watchdog/index.ts';
export { startLiveness, type Liveness, type LivenessDeps, type LivenessOptions } from './liveness.ts';
export { Lifecycle, type Closable, type LifecycleDeps, type LifecycleOptions, type ShutdownReport } from './lifecycle.ts';
export {
  logSlowBlock,
  shouldLogSlowBlock,
  slowBlockFields,
  SLOW_BLOCK_MSG,
  type SlowBlockFields,
  type SlowBlockInput,
} from './slowBlock.ts';
export * from './recovery/index.ts';
