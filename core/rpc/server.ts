/**
 * createRpcServer(options, deps): the node's JSON-RPC endpoint. Builds the shared services, the method table and
 * the dispatcher, serves them over HTTP (Hono on @hono/node-server) and WebSocket (ws, same port), and feeds chain
 * events to filters and subscriptions. Nothing listens until start(); close() undoes start() in reverse order.
 */
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { BlockResolver } from './blocks.ts';
import { EncodingCache } from './cache.ts';
import { Dispatcher } from './dispatch.ts';
import { FilterManager } from './filters.ts';
import { chainHealth } from './health.ts';
import { createHttpApp, ownPostRoutes, type HttpRoutes } from './http.ts';
import { answerBody, postContext, rpcPostListener, writeAnswer } from './httpPost.ts';
import { type EarlyListener } from './earlyListener.ts';
import { type RpcDeps } from './interface.ts';
import { type BlockData, type ReceiptData } from './encode/types.ts';
import { primeEncodings } from './prime.ts';
import { TokenBuckets } from './limits/tokenBucket.ts';
import { buildMethodTable } from './methods/index.ts';
import { type RpcOptions, rpcOptions } from './options.ts';
import { type RpcServices } from './services.ts';
import { SubscriptionManager } from './subscriptions.ts';
import { type WsAttachment, attachWebSocket } from './ws.ts';

export interface RpcServer {
  /**
   * Starts listening; resolves with the bound address (port 0 → the chosen port). With `early`, takes over that
   * already-bound socket (earlyListener.ts) and answers what it held, instead of binding its own.
   */
  start(early?: EarlyListener): Promise<{ host: string; port: number }>;
  /** Stops listening, drops WebSocket clients, filters and the event subscription. */
  close(): Promise<void>;
  readonly options: RpcOptions;
  readonly services: RpcServices;
  readonly dispatcher: Dispatcher;
  /** Pre-encodes a just-produced/imported block (and receipts) so its first readers get cached JSON. */
  prime(block: BlockData, receipts?: readonly ReceiptData[]): void;
}

/** Additions to the HTTP face that are not JSON-RPC. */
export interface RpcServerExtensions {
  /** Routes mounted before the JSON-RPC catch-alls (the node serves `GET /metrics` here). */
  routes?: HttpRoutes;
}

export function createRpcServer(options: Partial<RpcOptions>, deps: RpcDeps, extensions: RpcServerExtensions = {}): RpcServer {
  const opts = rpcOptions(options);
  const nowMs = deps.now ?? Date.now;
  const services: RpcServices = {
    options: opts,
    deps,
    blocks: new BlockResolver(deps.chain),
    cache: new EncodingCache(opts.encodingCacheEntries, opts.encodingCacheBytes),
    filters: new FilterManager(opts.filterTimeoutMs, opts.maxFilters, nowMs),
    subscriptions: new SubscriptionManager(opts.maxFilters),
  };
  const dispatcher = new Dispatcher(opts, buildMethodTable(services), {
    limiter: opts.rateLimit ? new TokenBuckets(opts.rateLimit, nowMs) : null,
    shed: deps.shed,
  });
  const post = postContext(opts, dispatcher);
  const app = createHttpApp(post, deps.chain, deps.health ?? chainHealth(deps.chain), nowMs, extensions.routes);
  let http: Server | undefined;
  let ws: WsAttachment | undefined;
  let unsubscribe: (() => void) | undefined;

  return {
    options: opts,
    services,
    dispatcher,
    prime: (block, receipts) => primeEncodings(services.cache, block, receipts),
    async start(early?: EarlyListener) {
      // Events first so no head produced between listen() and subscription is missed by filters.
      unsubscribe = deps.events?.subscribe({
        onNewHead: (header, logs) => {
          services.filters.onNewHead(header, logs);
          services.subscriptions.onNewHead(header, logs);
        },
        onPendingTx: (hash) => {
          services.filters.onPendingTx(hash);
          services.subscriptions.onPendingTx(hash);
        },
      });
      services.filters.start();
      // Without CORS, JSON-RPC POSTs are answered on node:http directly; everything else goes through Hono.
      const fast = opts.corsOrigins.length === 0;
      const hono = getRequestListener(app.fetch, { hostname: opts.host });
      const listener = fast ? rpcPostListener(post, hono, ownPostRoutes(app)) : hono;
      if (early) {
        http = early.server;
        ws = attachWebSocket(early.server, dispatcher, opts.maxBodyBytes, post.clientOf);
        early.handOver(listener, (h) => writeAnswer(h.res, answerBody(h.body ?? { ok: false, reason: 'aborted' }, h.req, post)));
        return early.address;
      }
      const server = createServer(listener);
      // Bound slow clients (slowloris, half-sent bodies): headers within 10 s, the whole request within 30 s.
      server.headersTimeout = 10_000;
      server.requestTimeout = 30_000;
      http = server;
      ws = attachWebSocket(server, dispatcher, opts.maxBodyBytes, post.clientOf);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(opts.port, opts.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const addr = server.address() as AddressInfo;
      return { host: addr.address, port: addr.port };
    },
    async close() {
      ws?.close();
      const server = http;
      if (server) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      services.filters.stop();
      unsubscribe?.();
      http = undefined;
      ws = undefined;
    },
  };
}
