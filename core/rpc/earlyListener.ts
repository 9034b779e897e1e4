/**
 * The JSON-RPC port, bound before the node has finished starting (issue #18: `npm start` answering RPC within 500 ms).
 * `xone run` binds it first thing, while the chain thread opens the store and the rest of the node loads: a client's
 * first call (viem, ethers and Foundry all begin with eth_chainId) is answered at once from the configuration, which
 * is all that answer depends on; every other request waits, unread where possible, and is answered by the real server
 * once it takes the socket over (`RpcServer.start({ early })`). Nothing is refused or answered from a guess: only a
 * single `eth_chainId` call to `/` is answered early, byte for byte as the server would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { readBody, type BodyResult } from './body.ts';
import { isJsonContentType } from './httpPost.ts';

/** A request held until the server takes over: its body when it had to be read (JSON-RPC to `/`), else unread. */
export interface HeldRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body?: BodyResult;
}

/** What the real server takes over. */
export interface EarlyListener {
  readonly server: Server;
  readonly address: { host: string; port: number };
  /**
   * Hands the socket over: `request` answers unread held requests and every later one, `answerRead` the held ones
   * whose body was read; WebSocket upgrades that came early are emitted again (attach the server's upgrade listener
   * first).
   */
  handOver(request: (req: IncomingMessage, res: ServerResponse) => void, answerRead: (held: HeldRequest) => void): void;
  /** Stops listening (start-up failed before the hand-over). */
  close(): Promise<void>;
}

/**
 * Binds `host:port` and answers `eth_chainId` with `chainId` until `handOver`; bodies are read up to `maxBodyBytes`
 * (the server's limit, so an early refusal is the one it would give). Rejects as `listen` would (EADDRINUSE).
 */
export async function listenEarly(host: string, port: number, chainId: bigint, maxBodyBytes: number): Promise<EarlyListener> {
  const held: HeldRequest[] = [];
  const upgrades: [IncomingMessage, Duplex, Buffer][] = [];
  const result = `"0x${chainId.toString(16)}"`;
  let answerRead: ((h: HeldRequest) => void) | undefined;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || path !== '/' || !isJsonContentType(req.headers['content-type'])) {
      held.push({ req, res });
      return;
    }
    void readBody(req, maxBodyBytes).then((body) => {
      const id = body.ok ? chainIdCallId(body.text) : undefined;
      if (id !== undefined) {
        const text = `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        res.end(text);
      } else if (answerRead) answerRead({ req, res, body });
      else held.push({ req, res, body });
    });
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => void upgrades.push([req, socket, head]);
  const server = createServer(onRequest);
  // As the server sets them: bound slow clients (headers within 10 s, the whole request within 30 s).
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on('upgrade', onUpgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  return {
    server,
    address: { host: addr.address, port: addr.port },
    handOver(request, read) {
      // Bodies still being read finish through `answerRead`; new requests go straight to the server.
      answerRead = read;
      server.off('request', onRequest);
      server.off('upgrade', onUpgrade);
      server.on('request', request);
      for (const h of held.splice(0)) {
        if (h.body === undefined) request(h.req, h.res);
        else read(h);
      }
      for (const [req, socket, head] of upgrades.splice(0)) server.emit('upgrade', req, socket, head);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The id of a body that is exactly one `eth_chainId` call (as JSON text), else undefined. */
function chainIdCallId(text: string): string | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return undefined;
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || m.method !== 'eth_chainId' || !('id' in m)) return undefined;
  if (m.params !== undefined && !(Array.isArray(m.params) && m.params.length === 0)) return undefined;
  const id = m.id;
  if (id === null || typeof id === 'number' || typeof id === 'string') return JSON.stringify(id);
  return undefined;
}
