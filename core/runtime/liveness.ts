/**
 * The liveness guards of one process, composed: the loop-lag probe writing the shared heartbeat and the watchdog
 * thread reading it. The node's composition root starts this first (so a stall during start-up is already seen) and
 * closes it last; the RPC server asks `isShedding()` before taking expensive work.
 */
import type { Logger } from '../log/types.ts';
import type { Gauge, Histogram } from '../metrics/types.ts';
import { SharedHeartbeat } from './heartbeat.ts';
import { LoopLagProbe, type LoopLagOptions } from './loopLag.ts';
import { Watchdog, type WatchdogConfig } from './watchdog/index.ts';

export interface LivenessOptions {
  probe?: LoopLagOptions;
  watchdog?: WatchdogConfig;
}

export interface LivenessDeps {
  logger?: Logger;
  metrics?: { loopLagMs: Gauge; loopLagSeconds: Histogram };
}

/** Running liveness guards. */
export interface Liveness {
  readonly probe: LoopLagProbe;
  readonly watchdog: Watchdog;
  readonly heartbeat: SharedHeartbeat;
  /** True while the watchdog found the main loop late and it has not recovered: answer -32005 to expensive work. */
  isShedding(): boolean;
  close(): Promise<void>;
}

/** Starts the probe and the watchdog thread; resolves once the watchdog is watching. */
export async function startLiveness(
  { probe: probeOptions, watchdog: watchdogConfig }: LivenessOptions = {},
  { logger, metrics }: LivenessDeps = {},
): Promise<Liveness> {
  const heartbeat = new SharedHeartbeat();
  const probe = new LoopLagProbe(probeOptions, { heartbeat, logger, metrics });
  const watchdog = new Watchdog(heartbeat, { probeIntervalMs: probeOptions?.intervalMs, ...watchdogConfig });
  probe.start();
  try {
    await watchdog.init();
  } catch (err) {
    probe.close();
    throw err;
  }
  return {
    probe,
    watchdog,
    heartbeat,
    isShedding: () => heartbeat.isShedding(),
    close: async () => {
      probe.close();
      await watchdog.close();
    },
  };
}
