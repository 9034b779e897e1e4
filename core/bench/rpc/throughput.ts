/** eth_blockNumber throughput at a fixed number of requests in flight, with autocannon (one request per connection). */
import { createRequire } from 'node:module';
import { cpuMs } from './processCpu.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
  timeouts: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon ships no type declarations; this is the slice of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const IDLE_SAMPLE_MS = 1000;

/** Throughput figures for one peer. */
export interface Throughput {
  reqPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU microseconds the peer's processes spent per request served (all threads, net of their idle rate; /proc). */
  cpuUsPerReq?: number;
}

/**
 * Runs eth_blockNumber (or the JSON-RPC `body` given) against `url` with `inFlight` connections for `seconds`; `pids`
 * are the peer's processes.
 */
export async function measureThroughput(
  url: string,
  inFlight: number,
  seconds: number,
  pids: readonly number[] = [],
  body: unknown = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
): Promise<Throughput> {
  // The peer's own background work (our dev chain seals a block every 2 s) is measured idle first and taken out.
  const idle0 = cpuMs(pids);
  if (pids.length > 0) await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
  const idleMsPerSec = ((cpuMs(pids) - idle0) * 1000) / IDLE_SAMPLE_MS;
  const cpu0 = cpuMs(pids);
  const r = await autocannon({
    url,
    connections: inFlight,
    pipelining: 1,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const cpu = Math.max(0, cpuMs(pids) - cpu0 - idleMsPerSec * seconds);
  return {
    ...(pids.length > 0 && r.requests.total > 0 ? { cpuUsPerReq: Math.round((cpu * 1000) / r.requests.total) } : {}),
    reqPerSec: Math.round(r.requests.total / seconds),
    total: r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
  };
}
