import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchLike } from '../../upstream/upstream.ts';

/** How long a keep-alive socket may sit idle in the pool. */
const FREE_SOCKET_TIMEOUT_MS = 4_000;

/**
 * A minimal FetchLike on node:http with keep-alive agents. Node 20's global fetch (undici) costs noticeably more per
 * request than http.request on a warm socket, and the upstream hop sits on every uncached call
 * (docs/decisions: gateway-upstream-http). Only what the pool uses: POST, a string body, status, text, one header.
 */
export function createNodeFetch(maxSockets = 256): FetchLike {
  // Idle sockets are closed after 4 s, before a Node server's 5 s keep-alive timeout closes them: reusing a socket the
  // server is closing at that instant fails with ECONNRESET (seen under load), and a write is not retried.
  const opts = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: FREE_SOCKET_TIMEOUT_MS };
  const agent = new Agent(opts);
  const tls = new HttpsAgent(opts);
  // The pool posts to a handful of fixed URLs: parse each once.
  const parsed = new Map<string, URL>();
  return (url, init) =>
    new Promise((resolve, reject) => {
      let u = parsed.get(url);
      if (!u) parsed.set(url, (u = new URL(url)));
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
