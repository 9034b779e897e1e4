import { DEFAULT_ALLOW } from '../methods/defaultAllow.ts';
import type { GatewayConfig } from './types.ts';

/**
 * Method weights charged against the caller's bucket (default 1). Heavier methods cost what they cost the node:
 * log and receipt scans walk many blocks, debug/trace re-execute.
 */
export const DEFAULT_COSTS: Record<string, number> = {
  eth_call: 2,
  eth_estimateGas: 2,
  eth_sendRawTransaction: 5,
  eth_getLogs: 20,
  eth_getBlockReceipts: 20,
  eth_feeHistory: 2,
  'debug_*': 50,
  'trace_*': 50,
};

/** Methods refused even when an allow-list pattern covers them, unless an entry names them (or their prefix) explicitly. */
export const DEFAULT_DENY = ['debug_*', 'admin_*', 'personal_*', 'miner_*', 'txpool_*'];

/** Defaults for every field; a config file and env override them. */
export const DEFAULT_CONFIG: GatewayConfig = {
  listen: { host: '127.0.0.1', port: 8645 },
  admin: { host: '127.0.0.1', port: 8646, token: '' },
  upstreams: [],
  limits: {
    maxBodyBytes: 1_048_576,
    maxBatchSize: 100,
    maxDepth: 16,
    callTimeoutMs: 10_000,
    getLogsSplitBlocks: 2_000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 15_000,
    maxConnectionsPerIp: 256,
    maxWsPerIp: 16,
    maxWsPerKey: 256,
    maxSubscriptionsPerWs: 128,
    wsSubscriptionsPerUpstreamSocket: 1_000,
  },
  identity: { trustedProxies: [], requireKey: false, keySecret: '', keyCacheTtlMs: 60_000, negativeKeyCacheTtlMs: 5_000 },
  tiers: {
    anonymous: { ratePerSec: 20, burst: 40, allowMethods: [...DEFAULT_ALLOW], denyMethods: DEFAULT_DENY },
    default: { ratePerSec: 100, burst: 200, allowMethods: [...DEFAULT_ALLOW], denyMethods: DEFAULT_DENY },
  },
  rateLimit: {
    backend: 'memory',
    failMode: { key: 'local', ip: 'local' },
    backendTimeoutMs: 50,
    backendMaxWaitMs: 1_000,
    leaseMaxTokens: 32,
    defaultCost: 1,
    costs: DEFAULT_COSTS,
  },
  cache: {
    enabled: true,
    maxEntries: 10_000,
    maxEntryBytes: 262_144,
    redis: false,
    realtimeTtlMs: 1_000,
    unfinalizedTtlMs: 30_000,
    finalizedTtlMs: 86_400_000,
    bypassHeader: 'x-cache-bypass',
  },
  head: { pollMs: 500, finalityDepth: 64, maxReorgDepth: 64, newHeads: true },
  health: { intervalMs: 2_000, maxHeadAgeMs: 60_000, maxLagBlocks: 5, errorRateThreshold: 0.5, retryAfterSec: 2 },
  retry: { attempts: 2 },
  consensus: { methods: [], onSingleUpstream: 'refuse' },
  hedge: { enabled: false, quantile: 0.95, minDelayMs: 10, maxDelayMs: 1_000, minSamples: 20 },
  log: { successSampleRate: 0.01 },
  redis: { url: '', prefix: 'xone:gw:' },
};
