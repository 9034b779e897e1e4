import type { Context } from 'hono';
import { Hono } from 'hono';
import type { HeadView } from './cache/plan.ts';
import type { GatewayConfig } from './config/types.ts';
import type { GatewayEnv } from './env.ts';
import type { KeyVerifier } from './keys/keyVerifier.ts';
import type { GatewayMetrics } from './metrics/types.ts';
import { callLog, type LogSink } from './middleware/callLog/callLog.ts';
import { dispatch } from './middleware/dispatch/dispatch.ts';
import type { CallDeps } from './middleware/dispatch/handleCall.ts';
import { identity } from './middleware/identity/identity.ts';
import { methodPolicy } from './middleware/methodPolicy/methodPolicy.ts';
import { rateLimit } from './middleware/rateLimit/rateLimit.ts';
import { requestContext } from './middleware/requestContext/requestContext.ts';
import { rpcBody } from './middleware/rpcBody/rpcBody.ts';
import { parseCidr, type Cidr } from './address/ip.ts';
import type { RateLimiter } from './ratelimit/types.ts';
import { onError } from './onError.ts';

/** Everything the app is built from (the composition root, gateway.ts, assembles these). */
export interface AppDeps extends Omit<CallDeps, 'cacheConfig' | 'callTimeoutMs' | 'head'> {
  config: GatewayConfig;
  head: HeadView;
  limiter: RateLimiter;
  verifier?: KeyVerifier;
  metrics: GatewayMetrics;
  sink: LogSink;
  remoteAddress: (c: Context<GatewayEnv>) => string | undefined;
  random?: () => number;
}

/**
 * The gateway as a Web-standard Hono app: POST / (and POST /v1/<key>) runs the pipeline
 * requestContext → callLog → rpcBody → identity → methodPolicy → rateLimit → dispatch; GET /health reports the head
 * and upstream fitness. Runs unchanged under @hono/node-server and on Workers.
 */
export function createApp(deps: AppDeps): Hono<GatewayEnv> {
  const { config } = deps;
  const app = new Hono<GatewayEnv>();
  const trusted = config.identity.trustedProxies.map(parseCidr).filter((x): x is Cidr => x !== undefined);
  const pipeline = [
    callLog({ sink: deps.sink, metrics: deps.metrics, successSampleRate: config.log.successSampleRate, random: deps.random }),
    rpcBody(config.limits),
    identity({ tiers: config.tiers, verifier: deps.verifier, trustedProxies: trusted, requireKey: config.identity.requireKey, remoteAddress: deps.remoteAddress }),
    methodPolicy({ costs: config.rateLimit.costs, defaultCost: config.rateLimit.defaultCost }),
    rateLimit({ limiter: deps.limiter, metrics: deps.metrics }),
  ] as const;
  const handler = dispatch({
    pool: deps.pool,
    head: deps.head,
    cache: deps.cache,
    coalescer: deps.coalescer,
    metrics: deps.metrics,
    cacheConfig: config.cache,
    callTimeoutMs: config.limits.callTimeoutMs,
    bypassHeader: config.cache.bypassHeader,
  });
  app.use('*', requestContext());
  app.post('/', ...pipeline, handler);
  app.post('/v1/:key', ...pipeline, handler);
  app.get('/health', (c) => {
    const upstreams = deps.pool.upstreams.map((u) => ({ name: u.name, head: u.head, fit: deps.pool.unfitReason(u) ?? 'ok' }));
    const ok = upstreams.some((u) => u.fit === 'ok');
    return c.json({ ok, head: deps.head.state ?? null, upstreams }, ok ? 200 : 503);
  });
  app.onError(onError);
  return app;
}
