/** The chain thread's production split (`ProducePhases`) in whole milliseconds, for the producer's log line. */
import type { ProducePhases } from '../chainService.ts';

/** Wall ms of each step, then the CPU ms of the whole produce call. */
export function roundPhases(p: ProducePhases): Record<string, number> {
  const r = (x: number): number => Math.round(x);
  return {
    decodeMs: r(p.decodeMs),
    executeMs: r(p.build.executeMs),
    bodyRootsMs: r(p.build.bodyRootsMs),
    stateRootMs: r(p.stateRootMs),
    sealMs: r(p.sealMs),
    commitMs: r(p.commitMs),
    totalMs: r(p.totalMs),
    // 0 when the chain thread does not read CPU (the node's producer: core/exec/cpuClock.ts).
    ...(p.totalCpuMs > 0 ? { cpuMs: r(p.totalCpuMs) } : {}),
  };
}
