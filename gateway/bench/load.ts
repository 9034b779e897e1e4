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
 * Runs autocannon with `connections` requests in flight (one per connection). Latency comes from autocannon's
 * per-response event (float milliseconds) rather than its histogram, which rounds to whole milliseconds.
 */
export async function load(
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 32,
  amount?: number,
): Promise<LoadResult> {
  const times: number[] = [];
  const instance = autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    connections,
    pipelining: 1,
    duration: seconds,
    amount,
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
