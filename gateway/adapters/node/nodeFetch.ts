import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchLike } from '../../upstream/upstream.ts';

/**
 * A minimal FetchLike on node:http with keep-alive agents. Node 20's global fetch (undici) costs noticeably more per
 * request than http.request on a warm socket, and the upstream hop sits on every uncached call
 * (docs/decisions: gateway-upstream-http). Only what the pool uses: POST, a string body, status, text, one header.
 */
export function createNodeFetch(maxSockets = 256): FetchLike {
  const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const tls = new HttpsAgent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  return (url, init) =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const isTls = u.protocol === 'https:';
      const req = (isTls ? httpsRequest : request)(
        u,
        { method: init.method, headers: { ...init.headers, 'content-length': Buffer.byteLength(init.body) }, agent: isTls ? tls : agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              text: async () => body,
              headers: { get: (name: string) => (res.headers[name.toLowerCase()] as string | undefined) ?? null },
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      // A plain timer, not an AbortSignal: creating a signal per request showed up in profiles.
      const timer = setTimeout(() => req.destroy(new Error(`upstream timeout after ${init.timeoutMs} ms`)), init.timeoutMs);
      req.once('close', () => clearTimeout(timer));
      req.end(init.body);
    });
}
