import { Pool } from 'undici';
import type { FetchLike } from '../../upstream/upstream.ts';
import { Http1Pool } from './http1Client.ts';

/** How long a keep-alive socket may sit idle (a shorter server `Keep-Alive: timeout` hint is honoured too). */
const FREE_SOCKET_TIMEOUT_MS = 4_000;

type Init = Parameters<FetchLike>[1];
type Answer = Awaited<ReturnType<FetchLike>>;

/** POSTs through undici's Pool (`request()`: no WHATWG Request/Response, no AbortSignal per call). */
function undiciTarget(u: URL, connections: number): { send(init: Init): Promise<Answer>; close(): Promise<void> } {
  const pool = new Pool(u.origin, { connections, keepAliveTimeout: FREE_SOCKET_TIMEOUT_MS, keepAliveMaxTimeout: FREE_SOCKET_TIMEOUT_MS });
  const path = `${u.pathname}${u.search}`;
  return {
    async send(init) {
      const res = await pool.request({
        path,
        method: init.method as 'POST',
        headers: init.headers,
        body: init.body,
        headersTimeout: init.timeoutMs,
        bodyTimeout: init.timeoutMs,
      });
      const body = await res.body.text();
      const headers = res.headers;
      return {
        status: res.statusCode,
        text: async () => body,
        headers: {
          get: (name: string) => {
            const v = headers[name.toLowerCase()];
            return typeof v === 'string' ? v : Array.isArray(v) ? v.join(', ') : null;
          },
        },
      };
    },
    close: () => pool.close(),
  };
}

/** POSTs over the project's keep-alive HTTP/1.1 client (plain http only; decision 0039). */
function http1Target(u: URL, connections: number): { send(init: Init): Promise<Answer>; close(): Promise<void> } {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const pool = new Http1Pool(host, Number(u.port || 80), u.host, connections, FREE_SOCKET_TIMEOUT_MS);
  const path = `${u.pathname}${u.search}`;
  return {
    async send(init) {
      const res = await pool.post(path, init.headers, init.body, init.timeoutMs);
      return { status: res.status, text: async () => res.body, headers: { get: (name) => res.headers.get(name.toLowerCase()) ?? null } };
    },
    close: () => pool.close(),
  };
}

/**
 * The Node adapter's FetchLike: one pool of keep-alive connections per upstream URL. Plain-http upstreams (the core,
 * geth on a private network) go through the project's HTTP/1.1 client, which took 43-47 µs of CPU per call against
 * undici's 90-130 µs (decision 0039); https upstreams and URLs with credentials go through undici. The timeout bounds
 * the whole answer. Only what the pool uses: POST, a string body, status, text, one header. Idle sockets close after
 * 4 s, before a Node server's 5 s keep-alive timeout closes them under us.
 */
export function createNodeFetch(connectionsPerOrigin = 256): FetchLike & { close(): Promise<void> } {
  const targets = new Map<string, { send(init: Init): Promise<Answer>; close(): Promise<void> }>();
  const fetchLike: FetchLike = (url, init) => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      t =
        u.protocol === 'http:' && !u.username && !u.password ? http1Target(u, connectionsPerOrigin) : undiciTarget(u, connectionsPerOrigin);
      targets.set(url, t);
    }
    return t.send(init);
  };
  return Object.assign(fetchLike, {
    async close() {
      await Promise.all([...targets.values()].map((t) => t.close()));
      targets.clear();
    },
  });
}
