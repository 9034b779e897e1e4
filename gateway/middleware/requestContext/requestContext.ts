import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../../env.ts';

/** Options of requestContext. */
export interface RequestContextOptions {
  headerName?: string;
  now?: () => number;
}

/** Assigns the request id (echoed in a response header and every log line) and the start time. */
export const requestContext = ({ headerName = 'X-Request-Id', now = () => performance.now() }: RequestContextOptions = {}) =>
  createMiddleware<GatewayEnv>(async function requestContext(c, next) {
    const id = crypto.randomUUID();
    c.set('requestId', id);
    c.set('startedAt', now());
    c.set('rpc', undefined);
    c.set('identity', undefined);
    c.set('extraHeaders', { [headerName]: id });
    await next();
    // The JSON-RPC answers carry it already (jsonResponse); other routes (health, 404) get it here.
    if (!c.get('headersSent')) c.res.headers.set(headerName, id);
  });
