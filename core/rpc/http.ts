/**
 * The HTTP face of the server as a Hono app: POST (any path) carries JSON-RPC, GET /health reports liveness, CORS
 * only when origins are configured. geth's HTTP rules: 405 for other methods, 415 for a non-JSON content type,
 * 413 for an oversized body; empty 200 when every message was a notification; an empty GET is a 200 ping.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { type HttpBindings } from '@hono/node-server';
import { answerHeaders, answerPost, type PostContext } from './httpPost.ts';
import { type RpcOptions } from './options.ts';
import { healthReport } from './health.ts';
import { type ChainView, type HealthSource } from './interface.ts';

/** Mounts extra routes on the HTTP app before the JSON-RPC catch-alls (e.g. the node's `GET /metrics`). */
export type HttpRoutes = (app: Hono<{ Bindings: HttpBindings }>) => void;

/**
 * Whether a POST to `url` belongs to one of the app's own POST routes (e.g. `/xone/v1/tx`) rather than to the
 * JSON-RPC catch-all: the fast POST listener leaves those to Hono.
 */
export function ownPostRoutes(app: Hono<{ Bindings: HttpBindings }>): (url: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const r of app.routes) {
    if ((r.method !== 'POST' && r.method !== 'ALL') || r.path === '*' || r.path === '/*') continue;
    const cut = r.path.search(/[:*]/);
    if (cut < 0) exact.add(r.path);
    else prefixes.push(r.path.slice(0, cut));
  }
  if (exact.size === 0 && prefixes.length === 0) return () => false;
  return (url) => {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    return exact.has(path) || prefixes.some((p) => path.startsWith(p));
  };
}

export function createHttpApp(
  post: PostContext,
  chain: ChainView,
  health: HealthSource,
  nowMs: () => number,
  routes?: HttpRoutes,
): Hono<{ Bindings: HttpBindings }> {
  const opts: RpcOptions = post.opts;
  const app = new Hono<{ Bindings: HttpBindings }>();
  if (opts.corsOrigins.length > 0) {
    const any = opts.corsOrigins.includes('*');
    app.use(
      '*',
      cors({ origin: any ? '*' : opts.corsOrigins, allowMethods: ['POST', 'GET', 'OPTIONS'], allowHeaders: ['Content-Type'], maxAge: 600 }),
    );
  }
  app.get('/health', (c) => {
    const r = healthReport(health, chain, opts.maxHeadAgeSeconds, nowMs());
    return c.json(r, r.status === 'ok' ? 200 : 503);
  });
  // Extra routes (the node's GET /metrics, block serving) go before the catch-alls below, which would answer them.
  routes?.(app);
  // With CORS the POSTs come here (the middleware adds its headers); without, rpcPostListener answers them first.
  app.post('*', async (c) => {
    const a = await answerPost(c.req.header('content-type'), c.env.incoming, post);
    return c.body(a.body as string, a.status as 200, answerHeaders(a));
  });
  app.get('*', (c) =>
    c.req.header('content-length') === undefined && !c.req.url.includes('?') ? c.body(null, 200) : c.text('method not allowed', 405),
  );
  app.all('*', (c) => c.text('method not allowed', 405));
  return app;
}
