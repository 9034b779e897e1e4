import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';

/**
 * Builds the JSON-RPC endpoint's HTTP response with a plain header object. Going through `c.body()` with several
 * headers, or setting one on `c.res` afterwards, builds a WHATWG Headers object per request (header-name validation
 * and all): on @hono/node-server that was measurable in the per-request profile, while a plain object is written to
 * the socket directly. Marks the request answered so requestContext does not add X-Request-Id a second time.
 */
export function jsonResponse(c: Context<GatewayEnv>, text: string, status: number, headers: Record<string, string>): Response {
  c.set('headersSent', true);
  return new Response(text, { status, headers: { ...c.get('extraHeaders'), ...headers, 'content-type': 'application/json' } });
}
