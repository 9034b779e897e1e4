import type { Context } from 'hono';
import { Hono } from 'hono';
import type { GatewayEnv } from './env.ts';
import { corsHeaders, preflightHeaders } from './cors/cors.ts';
import { constantTimeEqual } from './keys/hash.ts';
import { readLimited } from './middleware/rpcBody/readLimited.ts';
import { requestContext } from './middleware/requestContext/requestContext.ts';
import { createRpcPostHandler, type PipelineDeps, type RpcPostHandler } from './pipeline/answerRpcPost.ts';
import { onError } from './onError.ts';
import { parseCidr, type Cidr } from './address/ip.ts';
import { resolveIdentity } from './middleware/identity/resolveIdentity.ts';
import { answerUsage, type UsageRouteDeps } from './usage/answerUsage.ts';
import { USAGE_PAGE, USAGE_PAGE_FILES } from './usage/page/usagePage.ts';

/** Everything the app is built from: the pipeline's parts plus how the runtime names the client's address. */
export interface AppDeps extends PipelineDeps {
  remoteAddress: (c: Context<GatewayEnv>) => string | undefined;
}

/**
 * The gateway as a Web-standard Hono app: POST / (and POST /v1/<key>) runs the pipeline (`answerPost`, see
 * pipeline/answerRpcPost.ts: parse and limit → identity → method policy → rate buckets → answer → per-call log);
 * GET /health reports the head and upstream fitness. Runs unchanged under @hono/node-server and on Workers; the Node
 * adapter also calls `answerPost` straight from node:http (decision 0029).
 */
export function createApp(deps: AppDeps, answerPost: RpcPostHandler = createRpcPostHandler(deps)): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  const post = async (c: Context<GatewayEnv>): Promise<Response> => {
    const raw = c.req.raw;
    const a = await answerPost({
      headers: raw.headers,
      pathKey: c.req.param('key'),
      remote: deps.remoteAddress(c),
      readBody: (max) => readLimited(raw, max),
      requestId: c.get('requestId'),
      // @hono/node-server and Workers abort the request's signal when the client disconnects.
      clientGone: () => raw.signal?.aborted === true,
    });
    c.set('headersSent', true);
    return new Response(a.body, { status: a.status, headers: a.headers });
  };
  app.use('*', requestContext());
  // Preflights of browser pages on other origins, for every path (/, /v1/<key>, /health, /usage).
  app.options('*', (c) => c.body(null, 204, preflightHeaders(c.req.raw.headers, deps.config.cache.bypassHeader)));
  app.post('/', post);
  app.post('/v1/:key', post);
  const usage = deps.usage;
  if (usage) {
    const trustedProxies = deps.config.identity.trustedProxies.map(parseCidr).filter((x): x is Cidr => x !== undefined);
    // requireKey false here: a keyless read is refused by answerUsage itself, with a message that says why.
    const identity = { tiers: deps.config.tiers, verifier: deps.verifier, trustedProxies };
    const usageRoute = { usage, limiter: deps.limiter, resolve: (h, k, r) => resolveIdentity(h, k, r, identity) } satisfies UsageRouteDeps;
    const getUsage = async (c: Context<GatewayEnv>): Promise<Response> => {
      const raw = c.req.raw;
      const a = await answerUsage(usageRoute, {
        headers: raw.headers,
        pathKey: c.req.param('key'),
        remote: deps.remoteAddress(c),
        days: c.req.query('days'),
      });
      const headers = { ...a.headers, ...corsHeaders(raw.headers), 'X-Request-Id': c.get('requestId'), 'content-type': 'application/json' };
      return new Response(a.body, { status: a.status, headers });
    };
    app.get('/usage', getUsage);
    app.get('/v1/:key/usage', getUsage);
    // The key holder's usage page (static; its script reads GET /usage with the key from the path or its form).
    const page = (c: Context<GatewayEnv>) => c.body(USAGE_PAGE.body, 200, USAGE_PAGE.headers);
    app.get('/dashboard', page);
    app.get('/v1/:key/dashboard', page);
    app.get('/dashboard/:file', (c) => {
      const name = c.req.param('file');
      const f = Object.hasOwn(USAGE_PAGE_FILES, name) ? USAGE_PAGE_FILES[name] : undefined;
      return f ? c.body(f.body, 200, f.headers) : c.notFound();
    });
  }
  app.get('/health', (c) => {
    const upstreams = deps.pool.upstreams.map((u) => ({ name: u.name, head: u.head, fit: deps.pool.unfitReason(u) ?? 'ok' }));
    const ok = upstreams.some((u) => u.fit === 'ok');
    // Upstream names, heads and faults are for the operator (admin bearer token), not for anonymous callers.
    const token = deps.config.admin.token;
    const presented = (c.req.header('authorization') ?? '').replace(/^bearer\s+/i, '');
    const operator = token.length > 0 && constantTimeEqual(presented, token);
    const body = operator ? { ok, head: deps.head.state ?? null, upstreams } : { ok, head: deps.head.state ?? null };
    return c.json(body, ok ? 200 : 503, corsHeaders(c.req.raw.headers));
  });
  app.onError(onError);
  return app;
}
