/**
 * GET /health: "ok" (200) when synced with a fresh head, "syncing" or "lagging" (503) otherwise, with the head's
 * age so a load balancer and an operator see the same reason.
 */
import { type ChainView, type HealthSource } from './interface.ts';

export interface HealthReport {
  status: 'ok' | 'syncing' | 'lagging';
  headNumber: string;
  headAgeSeconds: number;
}

/** The default HealthSource: syncing and head time straight from the chain view. */
export const chainHealth = (chain: ChainView): HealthSource => ({
  isSyncing: () => chain.syncing() !== false,
  headTimestamp: () => chain.head().timestamp,
});

export function healthReport(source: HealthSource, chain: ChainView, maxHeadAgeSeconds: number, nowMs: number): HealthReport {
  const age = Math.max(0, Math.floor(nowMs / 1000) - Number(source.headTimestamp()));
  const status = source.isSyncing() ? 'syncing' : age > maxHeadAgeSeconds ? 'lagging' : 'ok';
  return { status, headNumber: '0x' + chain.head().number.toString(16), headAgeSeconds: age };
}
