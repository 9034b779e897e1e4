import type { GatewayMetrics } from '../metrics/types.ts';
import type { UpstreamPool } from './pool.ts';

/**
 * Probes every upstream with one batch [eth_syncing, eth_blockNumber]: records its head (and when it last moved),
 * whether it is syncing, and the outcome in its error window. Returns a stop function.
 */
export function startHealthProbe(
  pool: UpstreamPool,
  metrics: GatewayMetrics,
  intervalMs: number,
  now: () => number = () => Date.now(),
): () => void {
  const probeOne = async (u: (typeof pool.upstreams)[number]) => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
    ]);
    try {
      const reply = await u.send(body, Math.max(500, intervalMs));
      const arr = Array.isArray(reply.body) ? (reply.body as { id: number; result?: unknown }[]) : [];
      const syncing = arr.find((r) => r.id === 1);
      const num = arr.find((r) => r.id === 2)?.result;
      if (reply.status !== 200 || typeof num !== 'string') throw new Error('bad probe answer');
      u.syncing = syncing !== undefined && syncing.result !== false && syncing.result !== undefined;
      const n = parseInt(num, 16);
      if (n !== u.head) {
        u.head = n;
        u.headAt = now();
      } else if (u.headAt === 0) u.headAt = now();
      u.record(true);
    } catch {
      u.record(false);
    }
  };
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = async () => {
    await Promise.all(pool.upstreams.map(probeOne));
    const best = pool.bestHead;
    for (const u of pool.upstreams)
      metrics.upstreamHealth(u.name, pool.unfitReason(u) === undefined, best >= 0 && u.head >= 0 ? best - u.head : 0);
    if (!stopped) timer = setTimeout(loop, intervalMs);
  };
  void loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
