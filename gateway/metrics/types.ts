/**
 * The metrics the gateway records, behind a small interface so the Node adapter can back it with prom-client and the
 * Workers entry with another sink. Every label is bounded: methods outside the known table become `other`.
 * Names (Prometheus): docs/gateway.md "Metrics".
 */
export interface GatewayMetrics {
  /** xone_gateway_rpc_calls_total{method,outcome,cache} and xone_gateway_rpc_call_duration_seconds{outcome}. */
  call(method: string, outcome: 'ok' | 'rpc_error' | 'refused' | 'invalid' | 'unavailable', cache: string, seconds: number): void;
  /** xone_gateway_ratelimit_decisions_total{scope,decision}. */
  limiterDecision(scope: string, decision: 'allow' | 'deny'): void;
  /** xone_gateway_ratelimit_backend_failures_total{scope,mode}: the shared backend failed and the fail mode decided. */
  limiterBackendFailure(scope: string, mode: string): void;
  /** xone_gateway_cache_requests_total{class,result}. */
  cacheLookup(cls: string, result: 'hit' | 'miss' | 'coalesced' | 'bypass'): void;
  /** xone_gateway_upstream_requests_total{upstream,status} and xone_gateway_upstream_duration_seconds{upstream}. */
  upstreamRequest(upstream: string, status: string, seconds: number): void;
  /** xone_gateway_upstream_hedges_total{result}: a hedged read asked a second upstream (`sent`), which answered first (`won`). */
  hedge(result: 'sent' | 'won'): void;
  /** xone_gateway_consensus_total{method,result}: a consensus call's outcome (`agree`, `disagree`, `single`, `unavailable`). */
  consensus(method: string, result: 'agree' | 'disagree' | 'single' | 'unavailable'): void;
  /** xone_gateway_upstream_healthy{upstream} and xone_gateway_head_lag_blocks{upstream}. */
  upstreamHealth(upstream: string, healthy: boolean, lagBlocks: number): void;
  /** xone_gateway_head_block{tag}. */
  head(tag: 'latest' | 'safe' | 'finalized', block: number): void;
  /** xone_gateway_ws_messages_total{direction}. */
  wsMessage(direction: 'in' | 'out'): void;
  /**
   * xone_gateway_ws_upstream_sockets, xone_gateway_ws_upstream_subscriptions, xone_gateway_ws_client_subscriptions:
   * shared upstream sockets open, distinct subscriptions they carry, and client subscriptions fanned out from them.
   */
  wsSubscriptions(upstreamSockets: number, upstreamSubscriptions: number, clientSubscriptions: number): void;
  /** xone_gateway_key_lookups_total{result}. */
  keyLookup(result: 'hit' | 'miss' | 'invalid'): void;
  /** xone_gateway_http_responses_total{code}: one per HTTP response of the RPC endpoint (the 5xx and 429 alerts). */
  httpResponse(status: number): void;
  /** xone_gateway_redis_errors_total: a Redis command failed (error, timeout, disconnected); the Redis alert. */
  redisError(): void;
  /** xone_gateway_connections_refused_total{reason}: a connection closed at once (per-IP cap, WebSocket caps). */
  connectionRefused(reason: 'per_ip' | 'ws_per_ip' | 'ws_per_key'): void;
  /**
   * xone_gateway_usage_calls_total{tier,outcome} and xone_gateway_usage_compute_units_total{tier}: usage per tier
   * (never per key; per-key usage is served by GET /usage).
   */
  usage(tier: string, outcome: 'admitted' | 'refused' | 'other', computeUnits: number): void;
}

/** Metrics that record nothing (tests, or a runtime without a sink). */
export const noopMetrics: GatewayMetrics = {
  call() {},
  limiterDecision() {},
  limiterBackendFailure() {},
  cacheLookup() {},
  upstreamRequest() {},
  upstreamHealth() {},
  hedge() {},
  consensus() {},
  head() {},
  wsMessage() {},
  wsSubscriptions() {},
  keyLookup() {},
  httpResponse() {},
  redisError() {},
  connectionRefused() {},
  usage() {},
};
