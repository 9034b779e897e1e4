import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../../env.ts';
import { resolveIdentity, type IdentityOptions } from './resolveIdentity.ts';

/** Options of identity: resolveIdentity's, plus how to read the socket peer address. */
export interface IdentityMiddlewareOptions extends IdentityOptions {
  /** The socket peer address (Node: conninfo; Workers: CF-Connecting-IP). */
  remoteAddress: (c: Context<GatewayEnv>) => string | undefined;
}

/** Sets `identity` for the request (see resolveIdentity); refusals throw -32000/401. */
export const identity = ({ remoteAddress, ...opts }: IdentityMiddlewareOptions) =>
  createMiddleware<GatewayEnv>(async function identity(c, next) {
    c.set('identity', await resolveIdentity(c.req.raw.headers, c.req.param('key'), remoteAddress(c), opts));
    await next();
  });
