import type { GatewayConfig } from '../config/types.ts';
import type { Identity } from '../env.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import { methodCost } from '../methods/costs.ts';
import { applyMethodPolicy } from '../middleware/methodPolicy/applyMethodPolicy.ts';
import { chargeCalls } from '../middleware/rateLimit/chargeCalls.ts';
import { logCalls, type LogSink } from '../middleware/callLog/callLog.ts';
import type { RateLimiter } from '../ratelimit/types.ts';
import type { UsageRecorder } from '../usage/usageRecorder.ts';
import { GatewayError, toGatewayError } from '../rpc/gatewayError.ts';
import { parseRpcBody } from '../rpc/parse.ts';
import { rpcError, type JsonRpcResponse, type RpcCall, type RpcRequest } from '../rpc/types.ts';

/** What one client message turns into: text to send upstream, and/or replies for the client. */
export interface WsVerdict {
  forward?: string;
  replies: string[];
}

/** What a session needs; `sink` and `usage` are optional so a bare gate can be tested alone. */
export interface WsSessionDeps {
  config: GatewayConfig;
  limiter: RateLimiter;
  metrics: GatewayMetrics;
  usage?: UsageRecorder;
  /** Per-call log lines (the HTTP endpoint's format, `transport: "ws"`, no http_status). */
  sink?: LogSink;
  random?: () => number;
  /** Prefix of this connection's request ids (`<connection>:<message number>`). */
  connectionId?: string;
  now?: () => number;
}

/** A forwarded call waiting for its upstream answer, to be logged when it arrives. */
interface InFlight {
  call: RpcCall;
  rpc: RpcRequest;
  requestId: string;
  startedAt: number;
}

/** Forwarded calls awaiting an answer, per connection, beyond which the oldest are logged as unanswered. */
const MAX_IN_FLIGHT = 1_000;

/**
 * The per-connection gate of a proxied WebSocket: each client message goes through the same parse limits, method
 * policy and rate buckets as HTTP (per message and per element of a batch), so WebSocket traffic cannot bypass the
 * limits (proxyd's whitelisted WS methods do). Admitted calls are forwarded; refusals are answered locally.
 * Upstream messages (results and subscription notifications) are counted per message.
 */
export class WsSession {
  private readonly inflight = new Map<string, InFlight>();
  private seq = 0;
  private readonly now: () => number;
  private readonly connectionId: string;

  constructor(
    private readonly who: Identity,
    private readonly deps: WsSessionDeps,
  ) {
    this.now = deps.now ?? (() => performance.now());
    this.connectionId = deps.connectionId ?? crypto.randomUUID();
  }

  async onClientMessage(text: string): Promise<WsVerdict> {
    this.deps.metrics.wsMessage('in');
    const { config } = this.deps;
    const startedAt = this.now();
    const requestId = `${this.connectionId}:${++this.seq}`;
    let rpc;
    try {
      if (text.length > config.limits.maxBodyBytes) throw new GatewayError('tooLarge');
      rpc = parseRpcBody(text, config.limits);
    } catch (err) {
      const reply = rpcError(null, toGatewayError(err).toRpc());
      this.log(undefined, requestId, startedAt);
      return { replies: [JSON.stringify(reply)] };
    }
    applyMethodPolicy(rpc.calls, this.who, config.rateLimit.costs, config.rateLimit.defaultCost);
    try {
      await chargeCalls(rpc.calls, this.who, this.deps.limiter, this.deps.metrics);
    } catch (err) {
      const e = toGatewayError(err);
      for (const call of rpc.calls) call.response ??= rpcError(call.id, e.toRpc());
    }
    const admitted = rpc.calls.filter((c) => !c.response);
    this.deps.usage?.record(this.who, rpc.calls);
    // Answered here (refused, invalid, not allowed): logged now. Forwarded: logged when the upstream answers.
    const local = rpc.calls.filter((c) => c.response);
    if (local.length > 0) this.log({ ...rpc, calls: local }, requestId, startedAt);
    for (const call of admitted) this.await({ call, rpc, requestId, startedAt });
    const refused = local.map((c) => JSON.stringify(c.response));
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
    if (text.includes('"eth_subscription"')) {
      const cost = methodCost('eth_subscription', this.deps.config.rateLimit.costs, this.deps.config.rateLimit.defaultCost);
      if (cost > 0) void this.deps.limiter.debit?.(this.who.bucket, cost).catch(() => undefined);
      this.deps.usage?.recordCharge(this.who, 'eth_subscription', cost);
      return;
    }
    if (this.inflight.size === 0) return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const r of Array.isArray(msg) ? msg : [msg]) {
      if (r === null || typeof r !== 'object' || !('id' in r)) continue;
      const name = JSON.stringify((r as { id: unknown }).id);
      const waiting = this.inflight.get(name);
      if (!waiting) continue;
      this.inflight.delete(name);
      waiting.call.response = r as JsonRpcResponse;
      waiting.call.bytesOut = Array.isArray(msg) ? undefined : text.length;
      this.log({ ...waiting.rpc, calls: [waiting.call] }, waiting.requestId, waiting.startedAt);
    }
  }

  /** Logs what is still unanswered (the connection closed): those calls' lines say so instead of vanishing. */
  close(): void {
    for (const w of this.inflight.values()) {
      w.call.response = rpcError(w.call.id, { code: -32603, message: 'connection closed before the answer' });
      this.log({ ...w.rpc, calls: [w.call] }, w.requestId, w.startedAt);
    }
    this.inflight.clear();
  }

  private await(w: InFlight): void {
    const name = JSON.stringify(w.call.id);
    if (this.inflight.size >= MAX_IN_FLIGHT) {
      const oldest = this.inflight.keys().next().value as string;
      this.inflight.delete(oldest);
    }
    this.inflight.set(name, w);
  }

  private log(rpc: RpcRequest | undefined, requestId: string, startedAt: number): void {
    if (!this.deps.sink) return;
    const options = {
      sink: this.deps.sink,
      metrics: this.deps.metrics,
      successSampleRate: this.deps.config.log.successSampleRate,
      random: this.deps.random,
    };
    logCalls(options, { status: 0, transport: 'ws', rpc, who: this.who, requestId, totalMs: this.now() - startedAt });
  }
}
