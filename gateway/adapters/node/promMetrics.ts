import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayMetrics } from '../../metrics/types.ts';

/** GatewayMetrics on prom-client, all named xone_gateway_*; returns the registry for /metrics. */
export function createPromMetrics(opts: { defaults?: boolean } = {}): { metrics: GatewayMetrics; registry: Registry } {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: 'xone_gateway_' });
  const r = { registers: [registry] };
  const calls = new Counter({
    name: 'xone_gateway_rpc_calls_total',
    help: 'JSON-RPC calls by method, outcome and cache result',
    labelNames: ['method', 'outcome', 'cache'],
    ...r,
  });
  const callSeconds = new Histogram({
    name: 'xone_gateway_rpc_call_duration_seconds',
    help: 'Time to answer the HTTP request a call belongs to',
    labelNames: ['outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    ...r,
  });
  const decisions = new Counter({
    name: 'xone_gateway_ratelimit_decisions_total',
    help: 'Rate-limit decisions per call',
    labelNames: ['scope', 'decision'],
    ...r,
  });
  const failures = new Counter({
    name: 'xone_gateway_ratelimit_backend_failures_total',
    help: 'Decisions taken by a fail mode because the shared limiter failed',
    labelNames: ['scope', 'mode'],
    ...r,
  });
  const cache = new Counter({
    name: 'xone_gateway_cache_requests_total',
    help: 'Cache lookups by method class and result',
    labelNames: ['class', 'result'],
    ...r,
  });
  const upstream = new Counter({
    name: 'xone_gateway_upstream_requests_total',
    help: 'Requests sent upstream by HTTP status (network = no response)',
    labelNames: ['upstream', 'status'],
    ...r,
  });
  const upstreamSeconds = new Histogram({
    name: 'xone_gateway_upstream_duration_seconds',
    help: 'Upstream request latency',
    labelNames: ['upstream'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5],
    ...r,
  });
  const healthy = new Gauge({
    name: 'xone_gateway_upstream_healthy',
    help: '1 when the upstream may be used',
    labelNames: ['upstream'],
    ...r,
  });
  const lag = new Gauge({ name: 'xone_gateway_head_lag_blocks', help: 'Blocks behind the best upstream', labelNames: ['upstream'], ...r });
  const head = new Gauge({ name: 'xone_gateway_head_block', help: 'Served head per tag (monotonic, shared)', labelNames: ['tag'], ...r });
  const ws = new Counter({ name: 'xone_gateway_ws_messages_total', help: 'WebSocket messages proxied', labelNames: ['direction'], ...r });
  const hedges = new Counter({
    name: 'xone_gateway_upstream_hedges_total',
    help: 'Hedged reads: second upstream asked (sent), answered first (won)',
    labelNames: ['result'],
    ...r,
  });
  const consensus = new Counter({
    name: 'xone_gateway_consensus_total',
    help: 'Consensus calls by method and outcome (agree, disagree, single, unavailable)',
    labelNames: ['method', 'result'],
    ...r,
  });
  const wsSockets = new Gauge({ name: 'xone_gateway_ws_upstream_sockets', help: 'Shared upstream WebSockets open (subscriptions)', ...r });
  const wsUpSubs = new Gauge({
    name: 'xone_gateway_ws_upstream_subscriptions',
    help: 'Distinct subscriptions held on the upstream sockets',
    ...r,
  });
  const wsClientSubs = new Gauge({
    name: 'xone_gateway_ws_client_subscriptions',
    help: 'Client subscriptions fanned out from the upstream ones',
    ...r,
  });
  const keys = new Counter({
    name: 'xone_gateway_key_lookups_total',
    help: 'API key lookups (hit = in-process cache)',
    labelNames: ['result'],
    ...r,
  });
  const responses = new Counter({
    name: 'xone_gateway_http_responses_total',
    help: 'HTTP responses of the RPC endpoint by status code',
    labelNames: ['code'],
    ...r,
  });
  const redisErrors = new Counter({
    name: 'xone_gateway_redis_errors_total',
    help: 'Redis commands that failed (error, timeout, disconnected)',
    ...r,
  });
  const refused = new Counter({
    name: 'xone_gateway_connections_refused_total',
    help: 'Connections closed at once by a cap (per_ip, ws_per_ip, ws_per_key)',
    labelNames: ['reason'],
    ...r,
  });
  const usageCalls = new Counter({
    name: 'xone_gateway_usage_calls_total',
    help: 'Calls per tier by outcome (admitted, refused by the limiter, other: not charged)',
    labelNames: ['tier', 'outcome'],
    ...r,
  });
  const usageUnits = new Counter({
    name: 'xone_gateway_usage_compute_units_total',
    help: 'Compute units (method weights) charged per tier',
    labelNames: ['tier'],
    ...r,
  });
  const metrics: GatewayMetrics = {
    call(method, outcome, cacheResult, seconds) {
      calls.inc({ method, outcome, cache: cacheResult });
      callSeconds.observe({ outcome }, seconds);
    },
    limiterDecision: (scope, decision) => decisions.inc({ scope, decision }),
    limiterBackendFailure: (scope, mode) => failures.inc({ scope, mode }),
    cacheLookup: (cls, result) => cache.inc({ class: cls, result }),
    upstreamRequest(name, status, seconds) {
      upstream.inc({ upstream: name, status });
      if (seconds > 0) upstreamSeconds.observe({ upstream: name }, seconds);
    },
    upstreamHealth(name, ok, blocks) {
      healthy.set({ upstream: name }, ok ? 1 : 0);
      lag.set({ upstream: name }, blocks);
    },
    head: (tag, block) => head.set({ tag }, block),
    wsMessage: (direction) => ws.inc({ direction }),
    hedge: (result) => hedges.inc({ result }),
    consensus: (method, result) => consensus.inc({ method, result }),
    wsSubscriptions(sockets, up, clients) {
      wsSockets.set(sockets);
      wsUpSubs.set(up);
      wsClientSubs.set(clients);
    },
    keyLookup: (result) => keys.inc({ result }),
    httpResponse: (status) => responses.inc({ code: String(status) }),
    redisError: () => redisErrors.inc(),
    connectionRefused: (reason) => refused.inc({ reason }),
    usage(tier, outcome, units) {
      usageCalls.inc({ tier, outcome });
      if (units > 0) usageUnits.inc({ tier }, units);
    },
  };
  return { metrics, registry };
}
