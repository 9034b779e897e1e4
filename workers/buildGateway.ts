import { fetchBlock } from '../gateway/cache/headPoller.ts';
import { applyEnv } from '../gateway/config/env.ts';
import type { GatewayConfig } from '../gateway/config/types.ts';
import { buildConfig } from '../gateway/config/validate.ts';
import { createGateway, type Gateway } from '../gateway/gateway.ts';
import { noopMetrics } from '../gateway/metrics/types.ts';
import { immediateGate } from '../gateway/upstream/concurrencyGate.ts';
import { webFetch, type FetchLike } from '../gateway/upstream/upstream.ts';
import type { WorkerEnv } from './env.ts';
import { DurableObjectKeyStore } from './objects/doKeyStore.ts';
import { DurableObjectLimiter } from './objects/doLimiter.ts';
import { DurableObjectSharedHead } from './objects/doSharedHead.ts';
import { DurableObjectUsageStore } from './objects/doUsageStore.ts';
import type { WorkersCache } from './types.ts';
import { WorkersCacheStore } from './workersCache.ts';

/**
 * Defaults that differ on Workers: no admin port (the admin API is /admin/* on the Worker and refuses everything
 * until XONE_GATEWAY_ADMIN_TOKEN is set), key records cached for seconds only (there is no pub/sub between isolates), and a
 * limiter timeout that allows for a Durable Object in another region (Node's 50 ms is sized for a Redis on the LAN).
 */
const WORKERS_DEFAULTS = {
  admin: { port: 0 },
  identity: { keyCacheTtlMs: 2_000 },
  rateLimit: { backendTimeoutMs: 500, backendMaxWaitMs: 2_000 },
};

/** Reads the gateway config from the Worker's bindings: GATEWAY_CONFIG (JSON) with XONE_GATEWAY_* overrides. */
export function configFromEnv(env: WorkerEnv): GatewayConfig {
  const raw = env.GATEWAY_CONFIG ? (JSON.parse(env.GATEWAY_CONFIG) as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = { ...raw };
  for (const [k, v] of Object.entries(WORKERS_DEFAULTS)) merged[k] = { ...v, ...(raw[k] as object | undefined) };
  const strings: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') strings[k] = v;
  const config = buildConfig(applyEnv(merged, strings));
  // `cache.redis` means "use the shared tier"; on Workers that tier (Cache API + durable store) always exists and
  // needs no URL, so it is switched on after validation.
  config.cache.redis = config.cache.enabled;
  return config;
}

/** The upstream fetch: the runtime's fetch, with the auth header from the XONE_UPSTREAM_AUTH secret if set. */
function upstreamFetch(auth: string | undefined): FetchLike {
  if (!auth) return webFetch;
  return (url, init) => webFetch(url, { ...init, headers: { ...init.headers, authorization: auth } });
}

/** A gateway built for one isolate, and when its head was last refreshed. */
export interface WorkerGateway {
  gateway: Gateway;
  config: GatewayConfig;
  /** The store the gateway's key verifier reads; admin changes made through it drop this isolate's cached record at once. */
  keyStore: DurableObjectKeyStore;
  /** Refreshes the head from the upstreams if the last refresh is older than head.pollMs (there are no timers between requests on Workers). */
  refreshHead(): Promise<void> | undefined;
}

/**
 * Builds the gateway from bindings: Durable Object limiter, shared head and key store, the Cache API + durable
 * finalized store as the shared cache tier, per-call log lines as console JSON (Workers Logs / Logpush), and the
 * client address from CF-Connecting-IP (set by Cloudflare's edge, not forgeable by the client).
 */
export function buildWorkerGateway(env: WorkerEnv, cache: WorkersCache): WorkerGateway {
  const config = configFromEnv(env);
  const keyStore = new DurableObjectKeyStore(env.KEYS);
  const gateway = createGateway(config, {
    fetch: upstreamFetch(env.XONE_UPSTREAM_AUTH),
    metrics: noopMetrics,
    sink: (line) => console.log(JSON.stringify(line)),
    remoteAddress: (c) => c.req.header('cf-connecting-ip'),
    sharedLimiter: new DurableObjectLimiter(env.RATE_BUCKETS),
    sharedHead: new DurableObjectSharedHead(env.HEAD),
    sharedCache: new WorkersCacheStore(cache, env.FINAL_CACHE, config.cache.finalizedTtlMs),
    keyStore,
    upstreamGate: immediateGate,
    usageStore: new DurableObjectUsageStore(env.USAGE),
    backgroundTimers: false,
  });
  let last = 0;
  let running: Promise<void> | undefined;
  return {
    gateway,
    config,
    keyStore,
    refreshHead() {
      if (!config.cache.enabled || running || Date.now() - last < config.head.pollMs) return undefined;
      last = Date.now();
      running = refreshOnce(gateway, config).finally(() => (running = undefined));
      return running;
    },
  };
}

/** One head poll (the same steps as gateway/cache/headPoller.ts, without its timer). */
async function refreshOnce({ pool, tracker }: Gateway, config: GatewayConfig): Promise<void> {
  const t = Math.max(1000, config.head.pollMs);
  const [latest, safe, finalized] = await Promise.all(
    (['latest', 'safe', 'finalized'] as const).map((tag) => fetchBlock(pool, tag, t).catch(() => undefined)),
  );
  if (!latest) return;
  const fallback = Math.max(0, latest.number - config.head.finalityDepth);
  await tracker.update(latest, safe?.number ?? fallback, finalized?.number ?? fallback);
}
