import type { Identity } from '../../env.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import type { RateLimiter } from '../../ratelimit/types.ts';
import { RPC_ERRORS } from '../../rpc/errorTable.ts';
import { GatewayError } from '../../rpc/gatewayError.ts';
import { rpcError, type RpcCall } from '../../rpc/types.ts';
import { rateLimitHeaders, retryAfterSeconds } from './headers.ts';

/**
 * Charges every call still to run against the caller's bucket in one atomic decision, each at its method's cost (a
 * batch of 1,000 costs 1,000, not 1). Calls are admitted in order while they fit; the rest get -32005 with
 * {scope, limit, remaining, retryAfterMs, cost}. Returns the RateLimit headers; when nothing was admitted it throws
 * the whole-request refusal (HTTP 429 + Retry-After).
 */
export async function chargeCalls(
  calls: readonly RpcCall[],
  who: Identity,
  limiter: RateLimiter,
  metrics: GatewayMetrics,
): Promise<Record<string, string>> {
  const pending = calls.filter((call) => !call.response);
  if (pending.length === 0) return {};
  const result = await limiter.charge(
    [who.bucket],
    pending.map((call) => call.cost),
  );
  const scope = result.scopes[0];
  const headers = rateLimitHeaders(result.scopes, who.bucket.params.ratePerSec);
  pending.forEach((call, i) => {
    const admitted = i < result.admitted;
    call.limiter = { decision: admitted ? 'allow' : 'deny', scope: who.bucket.scope, remaining: scope?.remaining, cost: call.cost };
    metrics.limiterDecision(who.bucket.scope, admitted ? 'allow' : 'deny');
    if (!admitted && result.denied) {
      const data = {
        scope: result.denied.scope,
        limit: scope?.limit ?? 0,
        remaining: scope?.remaining ?? 0,
        retryAfterMs: result.denied.retryAfterMs,
        cost: call.cost,
      };
      call.response = rpcError(call.id, { code: RPC_ERRORS.limitExceeded.code, message: RPC_ERRORS.limitExceeded.message, data });
    }
  });
  if (result.admitted === 0 && result.denied) {
    const d = result.denied;
    const data = { scope: d.scope, limit: scope?.limit ?? 0, remaining: scope?.remaining ?? 0, retryAfterMs: d.retryAfterMs, cost: d.cost };
    throw new GatewayError('limitExceeded', undefined, data, { ...headers, 'Retry-After': retryAfterSeconds(d.retryAfterMs) });
  }
  return headers;
}
