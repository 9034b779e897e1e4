import type { Context } from 'hono';
import { createApp, type AppDeps } from './app.ts';
import { callDepsOf, createRpcPostHandler, type RpcPostHandler } from './pipeline/answerRpcPost.ts';
import { answerCalls } from './middleware/dispatch/dispatch.ts';
import type { RpcCall } from './rpc/types.ts';
import { Coalescer } from './cache/coalescer.ts';
import { MemorySharedHead, type SharedHead } from './cache/head.ts';
import { fetchBlock, startHeadPoller } from './cache/headPoller.ts';
import { HeadTracker } from './cache/headTracker.ts';
import { MemoryCache } from './cache/memoryCache.ts';
import { TieredCache } from './cache/tieredCache.ts';
import type { CacheStore } from './cache/types.ts';
import type { GatewayConfig } from './config/types.ts';
import type { GatewayEnv } from './env.ts';
import { KeyHasher } from './keys/hash.ts';
import { KeyVerifier } from './keys/keyVerifier.ts';
import type { KeyStore } from './keys/types.ts';
import type { LogSink } from './middleware/callLog/callLog.ts';
import type { GatewayMetrics } from './metrics/types.ts';
import { FallbackLimiter } from './ratelimit/fallbackLimiter.ts';
import { MemoryLimiter } from './ratelimit/memoryLimiter.ts';
import type { RateLimiter } from './ratelimit/types.ts';
import { startHealthProbe } from './upstream/healthProbe.ts';
import type { GateFactory } from './upstream/concurrencyGate.ts';
import type { ForwardResult } from './upstream/pool.ts';
import { UpstreamPool } from './upstream/pool.ts';
import type { FetchLike } from './upstream/upstream.ts';
import { MemoryUsageStore } from './usage/memoryUsageStore.ts';
import type { UsageStore } from './usage/types.ts';
import { UsageRecorder } from './usage/usageRecorder.ts';

/** The runtime-specific parts a gateway is built from (Node adapter: ioredis backends; Workers: Durable Objects). */
export interface GatewayPorts {
  fetch: FetchLike;
  metrics: GatewayMetrics;
  sink: LogSink;
  remoteAddress: (c: Context<GatewayEnv>) => string | undefined;
  /** Shared limiter (Redis); wrapped with the per-scope fail modes. Absent: one in-process limiter. */
  sharedLimiter?: RateLimiter;
  sharedHead?: SharedHead;
  /** Shared L2 cache tier. */
  sharedCache?: CacheStore;
  keyStore?: KeyStore;
  /** Where per-key usage is kept (Redis on Node, a Durable Object per key on Workers). Absent: this instance's memory. */
  usageStore?: UsageStore;
  /** False where timers die with their request (Workers): usage is flushed through `usage.flushDue()` instead. */
  backgroundTimers?: boolean;
  /** How calls wait for an upstream's concurrency slot (default: a queue; Workers: none, see concurrencyGate.ts). */
  upstreamGate?: GateFactory;
  random?: () => number;
}

/** A built gateway: the app plus the parts tests and adapters reach into, and its lifecycle. */
export interface Gateway {
  app: ReturnType<typeof createApp>;
  /** The JSON-RPC POST pipeline the app's routes run; the Node adapter also calls it straight from node:http. */
  answerPost: RpcPostHandler;
  pool: UpstreamPool;
  tracker: HeadTracker;
  limiter: RateLimiter;
  verifier?: KeyVerifier;
  /** Per-key usage accounting (GET /usage, the admin's GET /keys/:id/usage). */
  usage: UsageRecorder;
  /** Where per-call log lines go (HTTP and WebSocket). */
  sink: LogSink;
  /** Answers admitted calls as the HTTP endpoint does (cache, coalescing, pool): the WebSocket proxy's plain calls. */
  answerCalls(calls: RpcCall[]): Promise<void>;
  /** Starts health probes and head polling. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Composition root of one gateway instance. Order: metrics and pool first (everything reports through them), then
 * the head tracker (needs the pool to walk back through reorgs), the cache (evicted by the tracker), the limiter,
 * the key verifier, and finally the app that ties them together.
 */
export function createGateway(config: GatewayConfig, ports: GatewayPorts): Gateway {
  const { metrics } = ports;
  const pool = new UpstreamPool(config, metrics, ports.fetch, undefined, ports.upstreamGate);
  const l1 = new MemoryCache(config.cache.maxEntries, config.cache.maxEntryBytes);
  const cache = config.cache.enabled ? new TieredCache(l1, config.cache.redis ? ports.sharedCache : undefined) : undefined;
  const tracker = new HeadTracker({
    shared: ports.sharedHead ?? new MemorySharedHead(),
    metrics,
    fetchBlock: (n) => fetchBlock(pool, n, 2_000),
    onReplaced: (hash) => cache?.evictBlock(hash),
    maxReorgDepth: config.head.maxReorgDepth,
  });
  const limiter: RateLimiter = ports.sharedLimiter
    ? new FallbackLimiter(ports.sharedLimiter, {
        failMode: config.rateLimit.failMode,
        timeoutMs: config.rateLimit.backendTimeoutMs,
        // Never shorter than the first deadline (a config that only raised backendTimeoutMs keeps its meaning).
        maxWaitMs: Math.max(config.rateLimit.backendMaxWaitMs, config.rateLimit.backendTimeoutMs),
        metrics,
      })
    : new MemoryLimiter();
  const verifier = ports.keyStore
    ? new KeyVerifier(ports.keyStore, new KeyHasher(config.identity.keySecret), metrics, {
        positiveTtlMs: config.identity.keyCacheTtlMs,
        negativeTtlMs: config.identity.negativeKeyCacheTtlMs,
      })
    : undefined;
  const usage = new UsageRecorder({ store: ports.usageStore ?? new MemoryUsageStore(), metrics, timers: ports.backgroundTimers });
  const appDeps: AppDeps = {
    config,
    pool,
    head: tracker,
    cache,
    coalescer: new Coalescer<ForwardResult>(),
    limiter,
    verifier,
    usage,
    metrics,
    sink: ports.sink,
    remoteAddress: ports.remoteAddress,
    random: ports.random,
  };
  const answerPost = createRpcPostHandler(appDeps);
  const callDeps = callDepsOf(appDeps);
  const app = createApp(appDeps, answerPost);
  const stops: (() => void)[] = [];
  return {
    app,
    answerPost,
    pool,
    tracker,
    limiter,
    verifier,
    usage,
    sink: ports.sink,
    async answerCalls(calls) {
      await answerCalls({ isBatch: calls.length > 1, calls, bytesIn: 0 }, callDeps, false);
    },
    start() {
      stops.push(startHealthProbe(pool, metrics, config.health.intervalMs));
      if (config.cache.enabled) stops.push(startHeadPoller(pool, tracker, config.head));
    },
    async close() {
      for (const s of stops) s();
      await usage.close();
      await limiter.close?.();
      await pool.close();
    },
  };
}
