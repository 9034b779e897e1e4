import type { GatewayMetrics } from '../metrics/types.ts';
import type { Upstream } from './upstream.ts';
import type { UpstreamPool } from './pool.ts';

const PROBE_BODY = JSON.stringify([
  { jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] },
  { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
]);

async function probeOne(u: Upstream, timeoutMs: number, now: () => number): Promise<void> {
  try {
    const reply = await u.send(PROBE_BODY, timeoutMs);
    const arr = Array.isArray(reply.body) ? (reply.body as { id: number; result?: unknown }[]) : [];
    const syncing = arr.find((r) => r.id === 1);
    const num = arr.find((r) => r.id === 2)?.result;
    if (reply.status !== 200 || typeof num !== 'string') throw new Error('bad probe answer');
    u.syncing = syncing !== undefined && syncing.result !== false && syncing.result !== undefined;
    u.observeHead(parseInt(num, 16), now(), true);
    // It answers now: close its breaker, so it is routable again on this probe (not after 10 more successes).
    u.breaker.reset();
  } catch {
    u.record(false);
  }
}

/**
 * Probes every upstream once with one batch [eth_syncing, eth_blockNumber]: records its head (and when it last
 * moved), whether it is syncing, and the outcome in its breaker; then reports health and lag.
 */
export async function probeUpstreams(
  pool: UpstreamPool,
  metrics: GatewayMetrics,
  timeoutMs: number,
  now: () => number = () => Date.now(),
): Promise<void> {
  await Promise.all(pool.upstreams.map((u) => probeOne(u, timeoutMs, now)));
  const best = pool.bestHead;
  for (const u of pool.upstreams)
    metrics.upstreamHealth(u.name, pool.unfitReason(u) === undefined, best >= 0 && u.head >= 0 ? best - u.head : 0);
}

/** Probes every `intervalMs` until the returned stop function is called. */
export function startHealthProbe(
  pool: UpstreamPool,
  metrics: GatewayMetrics,
  intervalMs: number,
  now: () => number = () => Date.now(),
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = async () => {
    await probeUpstreams(pool, metrics, Math.max(500, intervalMs), now);
    if (!stopped) timer = setTimeout(loop, intervalMs);
  };
  void loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
