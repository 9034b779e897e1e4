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
import { bodyText } from '../rpc/serialize.ts';
import { rpcError, type RpcCall, type RpcRequest } from '../rpc/types.ts';

/** A client message after the gate: its calls (refusals already answered) and when it arrived. */
export interface WsAdmitted {
  rpc?: RpcRequest;
  requestId: string;
  startedAt: number;
  /** The whole message was refused before its calls were known (parse error, too large): this is the answer. */
  reply?: string;
}

/** Answers the admitted calls (those without a response): sets each call's response. */
export type WsAnswerCalls = (calls: RpcCall[]) => Promise<void>;

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

/**
 * The per-connection gate of a proxied WebSocket: each client message goes through the same parse limits, method
 * policy and rate buckets as HTTP (per message and per element of a batch), so WebSocket traffic cannot bypass the
 * limits (proxyd's whitelisted WS methods do). `admit` runs in arrival order (the buckets see the calls in order);
 * `finish` answers the admitted calls (the proxy's answerer: subscriptions through the hub, the rest through the
 * HTTP endpoint's cache and pool), logs one line per call and returns the reply in request order, a batch as one
 * array. Subscription notifications are counted and charged per message (`onNotification`).
 */
export class WsSession {
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

  async admit(text: string): Promise<WsAdmitted> {
    this.deps.metrics.wsMessage('in');
    const { config } = this.deps;
    const startedAt = this.now();
    const requestId = `${this.connectionId}:${++this.seq}`;
    let rpc;
    try {
      if (text.length > config.limits.maxBodyBytes) throw new GatewayError('tooLarge');
      rpc = parseRpcBody(text, config.limits);
    } catch (err) {
      const reply = JSON.stringify(rpcError(null, toGatewayError(err).toRpc()));
      this.log(undefined, requestId, startedAt);
      return { requestId, startedAt, reply };
    }
    applyMethodPolicy(rpc.calls, this.who, config.rateLimit.costs, config.rateLimit.defaultCost);
    try {
      await chargeCalls(rpc.calls, this.who, this.deps.limiter, this.deps.metrics);
    } catch (err) {
      const e = toGatewayError(err);
      for (const call of rpc.calls) call.response ??= rpcError(call.id, e.toRpc());
    }
    return { rpc, requestId, startedAt };
  }

  /** Answers what `admit` let through, logs every call of the message, and returns the reply text. */
  async finish(admitted: WsAdmitted, answer: WsAnswerCalls): Promise<string> {
    const { rpc } = admitted;
    if (!rpc) {
      this.deps.metrics.wsMessage('out');
      return admitted.reply ?? '';
    }
    const todo = rpc.calls.filter((c) => !c.response);
    if (todo.length > 0) {
      try {
        await answer(todo);
      } catch (err) {
        const e = toGatewayError(err);
        for (const call of todo) call.response ??= rpcError(call.id, e.toRpc());
      }
    }
    this.deps.usage?.record(this.who, rpc.calls);
    const reply = bodyText(rpc.calls, rpc.isBatch);
    this.deps.metrics.wsMessage('out');
    this.log(rpc, admitted.requestId, admitted.startedAt);
    return reply;
  }

  /**
   * Counts one notification sent to the client, and charges it to the caller's bucket at the cost of
   * `eth_subscription` (default 1): notifications are work the caller asked for, so they are metered like calls
   * (issue #17 item 8). They are charged after delivery (never dropped: a gap would break the subscription), so a
   * busy subscription draws the bucket down and the caller's next calls wait for it.
   */
  onNotification(): void {
    this.deps.metrics.wsMessage('out');
    const cost = methodCost('eth_subscription', this.deps.config.rateLimit.costs, this.deps.config.rateLimit.defaultCost);
    if (cost > 0) void this.deps.limiter.debit?.(this.who.bucket, cost).catch(() => undefined);
    this.deps.usage?.recordCharge(this.who, 'eth_subscription', cost);
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
