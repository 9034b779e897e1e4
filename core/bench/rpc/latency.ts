/**
 * Sequential call latency, both peers driven alike: warm-up calls, then `calls` calls per peer alternating between
 * them (so load drift hits both equally). Errors stay out of the percentiles and are counted by code.
 */
import { call, percentile, round3 } from './client.ts';
import type { Peer } from './peers.ts';

/** One peer's latency figures for one method. */
export interface LatencyStats {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  ok: number;
  errors: Record<string, number>;
}

/** Per-method figures for both peers and ours/anvil at p50 (lower is better). */
export interface MethodLatency {
  ours: LatencyStats;
  anvil: LatencyStats;
  p50Ratio: number;
}

/** Times `method` on both peers: `warmup` untimed calls each, then `calls` timed calls each. */
export async function measureLatency(
  ours: Peer,
  anvil: Peer,
  method: string,
  params: unknown[],
  calls: number,
  warmup: number,
): Promise<MethodLatency> {
  const peers = [ours, anvil];
  const times: number[][] = [[], []];
  const errors: Record<string, number>[] = [{}, {}];
  for (let i = 0; i < warmup; i++) for (const p of peers) await call(p.url, method, params);
  for (let i = 0; i < calls; i++) {
    for (let k = 0; k < 2; k++) {
      const r = await call(peers[k].url, method, params);
      if (r.code === undefined) times[k].push(r.ms);
      else errors[k][r.code] = (errors[k][r.code] ?? 0) + 1;
    }
  }
  const stats = (k: number): LatencyStats => {
    const t = times[k].sort((a, b) => a - b);
    return {
      p50Ms: round3(percentile(t, 50)),
      p95Ms: round3(percentile(t, 95)),
      p99Ms: round3(percentile(t, 99)),
      ok: t.length,
      errors: errors[k],
    };
  };
  const o = stats(0);
  const a = stats(1);
  return { ours: o, anvil: a, p50Ratio: round3(o.p50Ms / a.p50Ms) };
}
