/**
 * A scripted JSON-RPC server on 127.0.0.1 that fails on purpose, the ways the seed's run may have failed: -32005
 * refusals (200 and 429), HTTP 500s, hangs (the client must time out) and connection resets. Real HTTP over real
 * sockets; only the node's answers are scripted.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server does with one call. */
export type Behaviour = 'ok' | 'rpc-32005' | 'http-429' | 'http-500' | 'hang' | 'reset' | 'not-json';

/** Handle of a running fault server. */
export interface FaultServer {
  url: string;
  /** Arrival time (ms, monotonic) of every request, per method. */
  arrivals: Map<string, number[]>;
  close(): Promise<void>;
}

/** The script and knobs of a fault server. */
export interface FaultServerOptions {
  /** Behaviour of the n-th call of a method (cycled); methods not listed always answer ok. */
  script: Record<string, Behaviour[]>;
  /** Delay before an error answer, so a failed call is slower than any success and would show in a p95. */
  errorDelayMs?: number;
  /** When set, requests without this `x-api-key` get HTTP 401. */
  apiKey?: string;
}

/** Starts the server on a free 127.0.0.1 port. */
export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const counts = new Map<string, number>();
  const arrivals = new Map<string, number[]>();
  const hanging = new Set<ServerResponse>();
  const errorDelay = options.errorDelayMs ?? 150;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      const list = arrivals.get(body.method) ?? [];
      list.push(performance.now());
      arrivals.set(body.method, list);
      if (options.apiKey !== undefined && req.headers['x-api-key'] !== options.apiKey) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32001, message: 'missing or bad API key' } }));
        return;
      }
      const n = counts.get(body.method) ?? 0;
      counts.set(body.method, n + 1);
      const script = options.script[body.method];
      const behaviour: Behaviour = script ? script[n % script.length] : 'ok';
      const json = (status: number, payload: object, headers: Record<string, string> = {}) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...payload }));
      switch (behaviour) {
        case 'ok':
          return json(200, { result: body.method === 'web3_clientVersion' ? 'fault-server/v1' : '0x10' });
        case 'rpc-32005':
          return void setTimeout(() => json(200, { error: { code: -32005, message: 'limit exceeded' } }), errorDelay);
        case 'http-429':
          return void setTimeout(
            () => json(429, { error: { code: -32005, message: 'limit exceeded' } }, { 'retry-after': '1' }),
            errorDelay,
          );
        case 'http-500':
          return void setTimeout(
            () => res.writeHead(500, 'Internal Server Error', { 'content-type': 'text/plain' }).end('boom'),
            errorDelay,
          );
        case 'not-json':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway error</html>');
        case 'hang':
          hanging.add(res);
          return;
        case 'reset':
          return void setTimeout(() => req.socket.resetAndDestroy(), errorDelay);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
