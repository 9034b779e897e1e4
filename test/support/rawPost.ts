/**
 * JSON-RPC POSTs from a chosen local address (127.0.0.x are all loopback on Linux, so one host can play several
 * clients by IP), with an AbortSignal that closes the connection: what the execution pool sees as separate clients
 * and as a client that went away.
 */
import { request } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
  ms: number;
}

export function rawPost(
  url: string,
  body: unknown,
  opts: { localAddress?: string; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<RawReply> {
  const data = typeof body === 'string' ? body : JSON.stringify(body);
  const u = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...opts.headers },
        agent: false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON: the caller looks at text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, ms: performance.now() - t0 });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** p50 / p99 / max of a list of milliseconds. */
export function percentiles(ms: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}
