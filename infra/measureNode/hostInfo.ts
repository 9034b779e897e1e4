import { availableParallelism, loadavg } from 'node:os';
import type { HostInfo } from './types.ts';

/** The host's 1/5/15-minute load average and core count: a busy host explains tails (the seed's load was ~40 on 20 cores). */
export function readHostInfo(): HostInfo {
  const [one, five, fifteen] = loadavg();
  return { loadavg: [round2(one), round2(five), round2(fifteen)], cores: availableParallelism() };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
