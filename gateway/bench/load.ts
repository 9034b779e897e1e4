import autocannon from 'autocannon';

/** Figures of one load run. */
export interface LoadResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** The q-quantile of sorted values. */
export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/**
 * The i-th of a series of distinct calls (eth_getBalance of address i at the genesis block, cacheable): no two share
 * an upstream request through the gateway's coalescer, so a run of them measures the proxy path itself (issue #17:
 * the uncached 32-in-flight figure went through the coalescer with one repeated call).
 */
export const distinctCall = (i: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [`0x${i.toString(16).padStart(40, '0')}`, '0x0'] });

/**
 * Runs autocannon with `connections` requests in flight (one per connection). Latency comes from autocannon's
 * per-response event (float milliseconds) rather than its histogram, which rounds to whole milliseconds.
 * `bodyAt`: each request's body from a counter instead of `body` (distinct calls).
 */
export async function load(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 32,
  amount?: number,
  bodyAt?: (i: number) => string,
): Promise<LoadResult> {
  const times: number[] = [];
  let next = 0;
  const requests = bodyAt
    ? [
        {
          setupRequest: (req: { body?: string }) => {
            req.body = bodyAt(next++);
            return req;
          },
        },
      ]
    : undefined;
  const instance = autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections,
    pipelining: 1,
    duration: seconds,
    amount,
    requests,
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => times.push(ms));
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    instance.once('done', resolve);
    instance.once('error', reject);
  });
  times.sort((a, b) => a - b);
  return {
    reqPerSec: Math.round(r.requests.total / seconds),
    p50Ms: round(quantile(times, 0.5)),
    p99Ms: round(quantile(times, 0.99)),
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
