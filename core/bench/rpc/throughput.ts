/** eth_blockNumber throughput at a fixed number of requests in flight, with autocannon (one request per connection). */
import { createRequire } from 'node:module';

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

/** Throughput figures for one peer. */
export interface Throughput {
  reqPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

/** Runs eth_blockNumber against `url` with `inFlight` connections for `seconds`. */
export async function measureThroughput(url: string, inFlight: number, seconds: number): Promise<Throughput> {
  const r = await autocannon({
    url,
    connections: inFlight,
    pipelining: 1,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return {
    reqPerSec: Math.round(r.requests.total / seconds),
    total: r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
  };
}
