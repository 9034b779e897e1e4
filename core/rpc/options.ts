/**
 * Options of the node's JSON-RPC server with geth-like defaults (geth flags named in the comments). Parsed and
 * validated once by the CLI; the server only reads them.
 */

/** Per-client-IP token bucket (EIP-1474 -32005 when empty). */
export interface RateLimitOptions {
  /** Tokens added per second (one token per call; batches pay per element). */
  ratePerSecond: number;
  /** Bucket size: the burst a client may spend at once. */
  burst: number;
  /** Also limit 127.0.0.1/::1 (off by default: a local operator is trusted). */
  includeLoopback?: boolean;
  /** Most client buckets kept; the least recently used are dropped past it. */
  maxClients?: number;
}

export interface RpcOptions {
  /** Listen address; loopback unless the operator opts in. */
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Allowed CORS origins (`*` for any); none = no CORS headers (geth --http.corsdomain). */
  corsOrigins: string[];
  /** Largest request body (geth: 5 MB). */
  maxBodyBytes: number;
  /** Most calls per batch (geth --rpc.batch-request-limit 1000). */
  batchLimit: number;
  /** Most bytes of results per batch (geth --rpc.batch-response-max-size 25 MB). */
  batchResponseMaxBytes: number;
  /** Deepest JSON nesting accepted. */
  maxDepth: number;
  /** Deadline of every call (and of a whole batch); every handler gets an AbortSignal that fires at it. */
  callTimeoutMs: number;
  /** eth_call / estimateGas / createAccessList timeout (geth --rpc.evmtimeout 5 s). */
  evmTimeoutMs: number;
  /** Gas cap of eth_call / estimateGas (geth --rpc.gascap 50,000,000). */
  gasCap: bigint;
  /** Largest debug_trace* / trace_* answer in bytes (-32003 past it; a struct-logger trace stops as soon as it passes). */
  traceMaxBytes: number;
  /** eth_getLogs: most blocks in one range query. */
  logsMaxBlockRange: number;
  /** eth_getLogs: most logs in one answer (-32005 past it). */
  logsMaxResults: number;
  /** Filters not polled for this long are removed (geth: 5 minutes). */
  filterTimeoutMs: number;
  /** Most installed filters (and subscriptions per connection). */
  maxFilters: number;
  /** eth_feeHistory: most blocks (geth: 1024). */
  feeHistoryMaxBlocks: number;
  /** Dev mode: evm_* / anvil_* / hardhat_* methods exist. */
  dev: boolean;
  /** Rate limiting per client IP; undefined = off. */
  rateLimit?: RateLimitOptions;
  /**
   * Addresses of gateways whose `X-Xone-Client` header names the client a request counts as for the execution
   * pool's per-client share (`--rpc.trusted-gateways`); from anyone else the header is ignored.
   */
  trustedGateways: string[];
  /** /health: head older than this is "lagging". */
  maxHeadAgeSeconds: number;
  /**
   * Recent block/receipt JSON encodings kept (entries) and the bytes they may hold (text and UTF-8 copy: a full
   * 1,428-transaction block with its transactions is ~1.4 MB of JSON, 2.8 MB in the cache).
   */
  encodingCacheEntries: number;
  encodingCacheBytes: number;
  /** web3_clientVersion answer. */
  clientVersion: string;
}

/** geth-like defaults. */
export const defaultRpcOptions: RpcOptions = {
  host: '127.0.0.1',
  port: 8545,
  corsOrigins: [],
  maxBodyBytes: 5 * 1024 * 1024,
  batchLimit: 1000,
  batchResponseMaxBytes: 25 * 1000 * 1000,
  maxDepth: 64,
  callTimeoutMs: 30_000,
  evmTimeoutMs: 5_000,
  gasCap: 50_000_000n,
  traceMaxBytes: 100 * 1000 * 1000,
  logsMaxBlockRange: 10_000,
  logsMaxResults: 10_000,
  filterTimeoutMs: 5 * 60_000,
  maxFilters: 10_000,
  feeHistoryMaxBlocks: 1024,
  dev: false,
  trustedGateways: [],
  maxHeadAgeSeconds: 60,
  encodingCacheEntries: 128,
  encodingCacheBytes: 16 * 1024 * 1024,
  clientVersion: 'xone',
};

/** Defaults overlaid with the given fields. */
export const rpcOptions = (overrides: Partial<RpcOptions> = {}): RpcOptions => ({ ...defaultRpcOptions, ...overrides });
