import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../../env.ts';
import { applyMethodPolicy } from './applyMethodPolicy.ts';

/** Options of methodPolicy. */
export interface MethodPolicyOptions {
  costs?: Readonly<Record<string, number>>;
  defaultCost?: number;
}

/** Per-call method policy and cost (see applyMethodPolicy). */
export const methodPolicy = ({ costs = {}, defaultCost = 1 }: MethodPolicyOptions = {}) =>
  createMiddleware<GatewayEnv>(async function methodPolicy(c, next) {
    const rpc = c.get('rpc');
    const who = c.get('identity');
    if (rpc && who) applyMethodPolicy(rpc.calls, who, costs, defaultCost);
    await next();
  });
