/** What a rate scope does when its shared backend (Redis) fails: admit, refuse, or use a local in-process bucket. */
export type FailMode = 'open' | 'closed' | 'local';

/** A token bucket: refills `ratePerSec` tokens per second up to `burst`. */
export interface BucketParams {
  ratePerSec: number;
  burst: number;
}

/** A tier: bucket parameters and method policy shared by the keys (or keyless IPs) in it. */
export interface TierConfig extends BucketParams {
  /** Only these methods (exact names, `prefix_*`, or `*` for all) are served; default: the public eth/net/web3 API. */
  allowMethods: string[];
  /** Methods refused with -32004 (exact names or `prefix_*`). */
  denyMethods: string[];
}

/** One upstream core node. */
export interface UpstreamConfig {
  url: string;
  /** WebSocket URL for subscriptions (defaults to `url` with ws:/wss:). */
  wsUrl?: string;
  maxConcurrent: number;
  maxQueued: number;
  timeoutMs: number;
}

/** The whole gateway configuration (docs/gateway.md documents every field). */
export interface GatewayConfig {
  listen: { host: string; port: number };
  admin: { host: string; port: number; token: string };
  upstreams: UpstreamConfig[];
  limits: {
    maxBodyBytes: number;
    maxBatchSize: number;
    maxDepth: number;
    callTimeoutMs: number;
    /** eth_getLogs over a numeric range wider than this many blocks is split into ranges of it, sent at once (0: never). */
    getLogsSplitBlocks: number;
    /** Node server: time allowed for a request's headers (an idle or half-open connection is closed after it). */
    headersTimeoutMs: number;
    /** Node server: time allowed for the whole request (headers and body); a slower one gets 408 and is closed. */
    requestTimeoutMs: number;
    /** Node server: open connections per client address (IPv6 /64; trusted proxies exempt). */
    maxConnectionsPerIp: number;
    /** Open WebSocket connections per keyless client address, per instance. */
    maxWsPerIp: number;
    /** Open WebSocket connections per API key, per instance. */
    maxWsPerKey: number;
    /** Subscriptions one client WebSocket may hold. */
    maxSubscriptionsPerWs: number;
    /** Distinct upstream subscriptions one shared upstream WebSocket carries before another is opened. */
    wsSubscriptionsPerUpstreamSocket: number;
  };
  identity: { trustedProxies: string[]; requireKey: boolean; keySecret: string; keyCacheTtlMs: number; negativeKeyCacheTtlMs: number };
  tiers: Record<string, TierConfig>;
  rateLimit: {
    backend: 'memory' | 'redis';
    failMode: { key: FailMode; ip: FailMode };
    /** After this a late decision is granted by the fail mode when the fail mode grants it in full. */
    backendTimeoutMs: number;
    /** A decision slower than this (at least backendTimeoutMs) is a backend failure: the fail mode decides, refusals included. */
    backendMaxWaitMs: number;
    /** Redis backend: most tokens an instance leases from a shared bucket at once (at most 1 % of its burst; 0: none). */
    leaseMaxTokens: number;
    defaultCost: number;
    costs: Record<string, number>;
  };
  cache: {
    enabled: boolean;
    maxEntries: number;
    maxEntryBytes: number;
    redis: boolean;
    realtimeTtlMs: number;
    unfinalizedTtlMs: number;
    finalizedTtlMs: number;
    bypassHeader: string;
  };
  head: { pollMs: number; finalityDepth: number; maxReorgDepth: number; newHeads: boolean };
  health: { intervalMs: number; maxHeadAgeMs: number; maxLagBlocks: number; errorRateThreshold: number; retryAfterSec: number };
  retry: { attempts: number };
  /** Methods answered only when two upstreams give the same answer (eRPC's consensus policy); idempotent reads only. */
  consensus: { methods: string[]; onSingleUpstream: 'answer' | 'refuse' };
  /** Hedged reads: another upstream is asked when the first has not answered within its latency quantile. */
  hedge: { enabled: boolean; quantile: number; minDelayMs: number; maxDelayMs: number; minSamples: number };
  log: { successSampleRate: number };
  redis: { url: string; prefix: string };
}
