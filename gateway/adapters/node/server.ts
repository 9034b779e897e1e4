import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Redis } from 'ioredis';
import { withDeadline } from '../../async/withDeadline.ts';
import { createAdminApp } from '../../admin/adminApp.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { createGateway, type Gateway, type GatewayPorts } from '../../gateway.ts';
import { KeyHasher } from '../../keys/hash.ts';
import { KeyService } from '../../keys/keyService.ts';
import type { KeyStore } from '../../keys/types.ts';
import type { LogSink } from '../../middleware/callLog/callLog.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import { LeasingLimiter } from '../../ratelimit/leasingLimiter.ts';
import { parseCidr, type Cidr } from '../../address/ip.ts';
import { capConnectionsPerIp } from './connectionCap.ts';
import { createNodeFetch } from './nodeFetch.ts';
import { createPromMetrics } from './promMetrics.ts';
import { rawPostServer } from './rawPostServer.ts';
import { rpcPostListener } from './rpcPostListener.ts';
import { RedisCache } from './redisCache.ts';
import { createRedis, waitReady } from './redisClient.ts';
import { RedisKeyStore } from './redisKeyStore.ts';
import { RedisLimiter } from './redisLimiter.ts';
import { RedisSharedHead } from './redisSharedHead.ts';
import { RedisUsageStore } from './redisUsageStore.ts';
import { startNewHeadsFeed } from './newHeadsFeed.ts';
import { attachWsProxy } from './wsProxy.ts';

/** A running gateway on Node. */
export interface RunningGateway {
  gateway: Gateway;
  port: number;
  adminPort: number;
  metrics: GatewayMetrics;
  metricsText(): Promise<string>;
  keys?: KeyService;
  /** Problems found at start that do not stop it (also written to stderr), e.g. a Redis that keeps nothing. */
  warnings: string[];
  close(): Promise<void>;
}

/** Options of startGateway. */
export interface StartOptions {
  /** Log sink (default: one JSON line per call on stdout). */
  sink?: LogSink;
  /** Override metrics (default prom-client). */
  metrics?: GatewayMetrics;
  /** Start health probes and head polling (default true). */
  start?: boolean;
  /** Serve JSON-RPC POSTs through Hono too instead of the node:http fast path (tests run both; default false). */
  honoOnly?: boolean;
}

/**
 * A warning when the Redis holding the API keys persists nothing (neither AOF nor RDB snapshots): a restart of it
 * would lose every key (issue #17 item 10). Undefined when it persists, or when CONFIG is not allowed (managed Redis).
 */
async function redisPersistenceWarning(redis: Redis): Promise<string | undefined> {
  try {
    const [, aof] = (await redis.config('GET', 'appendonly')) as string[];
    const [, save] = (await redis.config('GET', 'save')) as string[];
    if (aof === 'yes' || (save !== undefined && save.trim() !== '')) return undefined;
    return 'redis persists nothing (appendonly no, save ""): every API key is lost when it restarts; run it with infra/redis/redis.conf (docs/gateway.md "Redis")';
  } catch {
    return undefined;
  }
}

const stdoutSink: LogSink = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

/**
 * Starts one gateway instance: Redis backends when `redis.url` is set (limiter, shared head, L2 cache, key store
 * with pub/sub invalidation), the public server (HTTP + WebSocket proxy) and the admin server. Port 0 picks a free
 * port (tests). Closes in reverse order of construction.
 */
export async function startGateway(config: GatewayConfig, opts: StartOptions = {}): Promise<RunningGateway> {
  const prom = createPromMetrics({ defaults: !opts.metrics });
  const metrics = opts.metrics ?? prom.metrics;
  const redisClients: Redis[] = [];
  const warnings: string[] = [];
  let keyStore: KeyStore | undefined;
  const upstreamFetch = createNodeFetch();
  const ports: GatewayPorts = {
    fetch: upstreamFetch,
    metrics,
    sink: opts.sink ?? stdoutSink,
    remoteAddress: (c) => getConnInfo(c).remote.address,
  };
  if (config.redis.url) {
    // The limiter applies its own timeout (usually shorter); this one bounds key, head and cache commands. It never
    // undercuts the limiter's: a limiter command cut at 2 s while the limiter would wait longer is a false failure.
    const redis = createRedis(config.redis.url, {
      commandTimeoutMs: Math.max(2_000, config.rateLimit.backendTimeoutMs, config.rateLimit.backendMaxWaitMs),
      onCommandError: () => metrics.redisError(),
      autoPipelining: true,
    });
    redisClients.push(redis);
    await waitReady(redis).catch(() => undefined);
    const persistence = await redisPersistenceWarning(redis);
    if (persistence) warnings.push(persistence);
    if (config.rateLimit.backend === 'redis')
      ports.sharedLimiter = new LeasingLimiter(new RedisLimiter(redis, config.redis.prefix), {
        maxTokens: config.rateLimit.leaseMaxTokens,
      });
    ports.sharedHead = new RedisSharedHead(redis, config.redis.prefix);
    if (config.cache.redis) ports.sharedCache = new RedisCache(redis, config.redis.prefix);
    keyStore = new RedisKeyStore(redis, config.redis.prefix, config.redis.url);
    ports.keyStore = keyStore;
    ports.usageStore = new RedisUsageStore(redis, config.redis.prefix);
  }
  const gateway = createGateway(config, ports);
  const stopFeeds: (() => void)[] = [];
  if (opts.start !== false) {
    gateway.start();
    // newHeads from every upstream (the tracker links each head to its parent, so mixed sources are safe).
    if (config.cache.enabled && config.head.newHeads) {
      gateway.pool.upstreams.forEach((u) => {
        if (u.config.wsUrl)
          stopFeeds.push(
            startNewHeadsFeed(u.config.wsUrl, gateway.tracker, config.head.finalityDepth, (n) => u.observeHead(n, Date.now())),
          );
      });
    }
  }
  // The first limiter decision of a fresh process (script load, cold code) took over 50 ms on a loaded host; it is
  // paid here, before the port opens, not by the first caller (bounded: a Redis that is down is the fail modes' job).
  await withDeadline(gateway.limiter.warm?.() ?? Promise.resolve(), 5_000, () => new Error('limiter warm-up timed out')).catch(
    () => undefined,
  );
  const hono = getRequestListener(gateway.app.fetch);
  const { headersTimeoutMs, requestTimeoutMs } = config.limits;
  // Idle, half-open and slow clients are cut off (issue #17 item 12): Node's defaults held them for 60-300 s.
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 2))),
    },
    opts.honoOnly ? hono : rpcPostListener(gateway.answerPost, hono),
  );
  // JSON-RPC POSTs of the plain shape are read and answered on the raw socket; the rest of a connection, from its
  // first other request on, is node:http's (docs/decisions/0042-gateway-raw-post-server.md). honoOnly: node:http alone.
  const raw = opts.honoOnly
    ? undefined
    : rawPostServer(server, gateway.answerPost, {
        maxBodyBytes: config.limits.maxBodyBytes,
        headersTimeoutMs,
        requestTimeoutMs,
        keepAliveTimeoutMs: server.keepAliveTimeout,
      });
  const front = raw?.server ?? server;
  const trusted = config.identity.trustedProxies.map(parseCidr).filter((x): x is Cidr => x !== undefined);
  const stopCap = capConnectionsPerIp(front, config.limits.maxConnectionsPerIp, headersTimeoutMs, trusted, metrics);
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(config.listen.port, config.listen.host, () => {
      front.off('error', reject);
      resolve();
    });
  });
  const stopWs = attachWsProxy(server, gateway, config, metrics);
  const keys = keyStore ? new KeyService(keyStore, new KeyHasher(config.identity.keySecret), Object.keys(config.tiers)) : undefined;
  const metricsText = () => prom.registry.metrics();
  let admin: Server | undefined;
  if (config.admin.port !== 0 || config.admin.token) {
    const adminApp = createAdminApp({ token: config.admin.token, keys, metricsText, usage: gateway.usage });
    admin = serve({ fetch: adminApp.fetch, hostname: config.admin.host, port: config.admin.port }) as Server;
    await new Promise<void>((resolve) => (admin?.listening ? resolve() : admin?.once('listening', () => resolve())));
  }
  return {
    gateway,
    port: (front.address() as AddressInfo).port,
    adminPort: admin ? (admin.address() as AddressInfo).port : 0,
    metrics,
    metricsText,
    keys,
    warnings,
    async close() {
      admin?.closeAllConnections();
      admin?.close();
      stopWs();
      stopCap();
      for (const stop of stopFeeds) stop();
      raw?.closeAllConnections();
      server.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      // Not listening itself behind the raw server: this only stops its timers and idle connections.
      if (front !== server) server.close();
      await gateway.close();
      await upstreamFetch.close();
      await keyStore?.close?.();
      for (const r of redisClients) r.disconnect();
    },
  };
}
