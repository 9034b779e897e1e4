import type { GatewayConfig } from '../config/types.ts';
import type { Identity } from '../env.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import { methodCost } from '../methods/costs.ts';
import { applyMethodPolicy } from '../middleware/methodPolicy/applyMethodPolicy.ts';
import { chargeCalls } from '../middleware/rateLimit/chargeCalls.ts';
import type { RateLimiter } from '../ratelimit/types.ts';
import { GatewayError, toGatewayError } from '../rpc/gatewayError.ts';
import { parseRpcBody } from '../rpc/parse.ts';
import { rpcError } from '../rpc/types.ts';

/** What one client message turns into: text to send upstream, and/or replies for the client. */
export interface WsVerdict {
  forward?: string;
  replies: string[];
}

/**
 * The per-connection gate of a proxied WebSocket: each client message goes through the same parse limits, method
 * policy and rate buckets as HTTP (per message and per element of a batch), so WebSocket traffic cannot bypass the
 * limits (proxyd's whitelisted WS methods do). Admitted calls are forwarded; refusals are answered locally.
 * Upstream messages (results and subscription notifications) are counted per message.
 */
export class WsSession {
  constructor(
    private readonly who: Identity,
    private readonly deps: { config: GatewayConfig; limiter: RateLimiter; metrics: GatewayMetrics },
  ) {}

  async onClientMessage(text: string): Promise<WsVerdict> {
    this.deps.metrics.wsMessage('in');
    const { config } = this.deps;
    let rpc;
    try {
      if (text.length > config.limits.maxBodyBytes) throw new GatewayError('tooLarge');
      rpc = parseRpcBody(text, config.limits);
    } catch (err) {
      return { replies: [JSON.stringify(rpcError(null, toGatewayError(err).toRpc()))] };
    }
    applyMethodPolicy(rpc.calls, this.who, config.rateLimit.costs, config.rateLimit.defaultCost);
    try {
      await chargeCalls(rpc.calls, this.who, this.deps.limiter, this.deps.metrics);
    } catch (err) {
      const e = toGatewayError(err);
      for (const call of rpc.calls) call.response ??= rpcError(call.id, e.toRpc());
    }
    const admitted = rpc.calls.filter((c) => !c.response);
    const refused = rpc.calls.filter((c) => c.response).map((c) => JSON.stringify(c.response));
    const toObj = (c: (typeof admitted)[number]) => ({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params });
    const forward =
      admitted.length === 0
        ? undefined
        : rpc.isBatch
          ? JSON.stringify(admitted.map(toObj))
          : JSON.stringify(toObj(admitted[0] as (typeof admitted)[number]));
    // A batch answer is split: local refusals go as their own array so the client still gets one answer per id.
    const replies = refused.length === 0 ? [] : rpc.isBatch ? [`[${refused.join(',')}]`] : refused;
    return forward === undefined ? { replies } : { forward, replies };
  }

  /**
   * Counts one upstream → client message, and charges a subscription notification to the caller's bucket at the
   * cost of `eth_subscription` (default 1): notifications are work the caller asked for, so they are metered like
   * calls (issue #17 item 8). They are charged after delivery (never dropped: a gap would break the subscription), so
   * a busy subscription draws the bucket down and the caller's next calls wait for it.
   */
  onUpstreamMessage(text: string): void {
    this.deps.metrics.wsMessage('out');
    if (!text.includes('"eth_subscription"')) return;
    const cost = methodCost('eth_subscription', this.deps.config.rateLimit.costs, this.deps.config.rateLimit.defaultCost);
    if (cost > 0) void this.deps.limiter.debit?.(this.who.bucket, cost).catch(() => undefined);
  }
}
