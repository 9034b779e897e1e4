import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../../env.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import type { RateLimiter } from '../../ratelimit/types.ts';
import { GatewayError } from '../../rpc/gatewayError.ts';
import { chargeCalls } from './chargeCalls.ts';

/** Options of rateLimit. */
export interface RateLimitOptions {
  limiter: RateLimiter;
  metrics: GatewayMetrics;
}

/**
 * Charges the request's calls (see chargeCalls). If nothing was admitted the whole request is refused with HTTP 429,
 * Retry-After and RateLimit headers; a partly admitted batch goes on and is answered 200 with -32005 on the refused
 * elements. RateLimit headers go on every response.
 */
export const rateLimit = ({ limiter, metrics }: RateLimitOptions) =>
  createMiddleware<GatewayEnv>(async function rateLimit(c, next) {
    const rpc = c.get('rpc');
    const who = c.get('identity');
    if (!rpc || !who) return next();
    try {
      Object.assign(c.get('extraHeaders'), await chargeCalls(rpc.calls, who, limiter, metrics));
    } catch (err) {
      if (err instanceof GatewayError) Object.assign(c.get('extraHeaders'), err.headers);
      throw err;
    }
    await next();
  });
