import { parseCidr, type Cidr } from '../address/ip.ts';
import { corsHeaders } from '../cors/cors.ts';
import type { Identity } from '../env.ts';
import { CLIENT_CLOSED, logCalls } from '../middleware/callLog/callLog.ts';
import { answerCalls } from '../middleware/dispatch/dispatch.ts';
import { resolveIdentity, type HeaderLookup } from '../middleware/identity/resolveIdentity.ts';
import { applyMethodPolicy } from '../middleware/methodPolicy/applyMethodPolicy.ts';
import { chargeCalls } from '../middleware/rateLimit/chargeCalls.ts';
import { GatewayError, toGatewayError } from '../rpc/gatewayError.ts';
import { parseRpcBody } from '../rpc/parse.ts';
import { bodyText } from '../rpc/serialize.ts';
import { rpcError, type RpcRequest } from '../rpc/types.ts';
import type { HeadView } from '../cache/plan.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { KeyVerifier } from '../keys/keyVerifier.ts';
import type { GatewayMetrics } from '../metrics/types.ts';
import type { LogSink } from '../middleware/callLog/callLog.ts';
import type { CallDeps } from '../middleware/dispatch/handleCall.ts';
import type { RateLimiter } from '../ratelimit/types.ts';
import type { UsageRecorder } from '../usage/usageRecorder.ts';

/** What the pipeline is built from (the composition root, gateway.ts, assembles these). */
export interface PipelineDeps extends Omit<CallDeps, 'cacheConfig' | 'callTimeoutMs' | 'head' | 'getLogsSplitBlocks'> {
  config: GatewayConfig;
  head: HeadView;
  limiter: RateLimiter;
  verifier?: KeyVerifier;
  /** Per-key usage accounting; absent in tests that build a bare pipeline. */
  usage?: UsageRecorder;
  metrics: GatewayMetrics;
  sink: LogSink;
  random?: () => number;
}

/** One JSON-RPC POST as the pipeline sees it, whatever server received it (Hono on any runtime, or node:http). */
export interface RpcPostInput {
  headers: HeaderLookup;
  /** The `<key>` of `/v1/<key>`, when the request came that way. */
  pathKey: string | undefined;
  /** The socket peer address (before the trusted-proxy walk). */
  remote: string | undefined;
  /** Reads the body as text, refusing it (GatewayError `tooLarge`) past `maxBytes`. */
  readBody: (maxBytes: number) => Promise<string>;
  /** The request id, when the server assigned one already. */
  requestId?: string;
  /** True once the client has gone away (closed the connection before the answer was written). */
  clientGone?: () => boolean;
}

/** The HTTP answer: status, every header (X-Request-Id, RateLimit, X-Cache, Retry-After, content type), the body. */
export interface RpcPostAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Answers one JSON-RPC POST; never throws. */
export type RpcPostHandler = (input: RpcPostInput) => Promise<RpcPostAnswer>;

const REQUEST_ID_HEADER = 'X-Request-Id';

/** What answering admitted calls needs, from the pipeline's parts (HTTP and the WebSocket proxy share it). */
export function callDepsOf(deps: PipelineDeps): CallDeps {
  const { config } = deps;
  return {
    pool: deps.pool,
    head: deps.head,
    cache: deps.cache,
    coalescer: deps.coalescer,
    metrics: deps.metrics,
    cacheConfig: config.cache,
    callTimeoutMs: config.limits.callTimeoutMs,
    getLogsSplitBlocks: config.limits.getLogsSplitBlocks,
  };
}

/**
 * The gateway pipeline as one function: parse and limit → identity → method policy → rate buckets → answer the calls
 * → one log line per call. Both the Hono routes (every runtime) and the Node adapter's node:http fast path call it,
 * so rules, headers, error bodies and log lines are the same by construction. Thrown errors become the wire answer
 * here: a whole-request error answers every call that has no answer of its own (a per-element -32005 or -32004
 * stays), a batch stays an array in request order, unexpected errors become -32603 without internals.
 */
export function createRpcPostHandler(deps: PipelineDeps, now: () => number = () => performance.now()): RpcPostHandler {
  const { config } = deps;
  const trustedProxies = config.identity.trustedProxies.map(parseCidr).filter((x): x is Cidr => x !== undefined);
  const identityOptions = { tiers: config.tiers, verifier: deps.verifier, trustedProxies, requireKey: config.identity.requireKey };
  const { costs, defaultCost } = config.rateLimit;
  const { maxBodyBytes, maxBatchSize, maxDepth } = config.limits;
  const bypassHeader = config.cache.bypassHeader;
  const callDeps = callDepsOf(deps);
  const logOptions = { sink: deps.sink, metrics: deps.metrics, successSampleRate: config.log.successSampleRate, random: deps.random };

  return async function answerRpcPost(input: RpcPostInput): Promise<RpcPostAnswer> {
    const startedAt = now();
    const requestId = input.requestId ?? crypto.randomUUID();
    // The answer's headers, filled in place as the steps add theirs (one object per request, no spreads).
    const extra: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
    Object.assign(extra, corsHeaders(input.headers));
    let rpc: RpcRequest | undefined;
    let who: Identity | undefined;
    let answer: RpcPostAnswer;
    try {
      rpc = parseRpcBody(await input.readBody(maxBodyBytes), { maxBatchSize, maxDepth });
      who = await resolveIdentity(input.headers, input.pathKey, input.remote, identityOptions);
      applyMethodPolicy(rpc.calls, who, costs, defaultCost);
      try {
        Object.assign(extra, await chargeCalls(rpc.calls, who, deps.limiter, deps.metrics));
      } catch (err) {
        if (err instanceof GatewayError) Object.assign(extra, err.headers);
        throw err;
      }
      const answered = await answerCalls(rpc, callDeps, Boolean(input.headers.get(bypassHeader)));
      for (const name in answered.headers) extra[name] = answered.headers[name] as string;
      extra['content-type'] = 'application/json';
      answer = { status: answered.status, headers: extra, body: answered.body };
    } catch (err) {
      const e = toGatewayError(err);
      let body: string;
      if (!rpc) body = JSON.stringify(rpcError(null, e.toRpc()));
      else {
        for (const call of rpc.calls) call.response ??= rpcError(call.id, e.toRpc());
        body = bodyText(rpc.calls, rpc.isBatch);
      }
      Object.assign(extra, e.headers);
      extra['content-type'] = 'application/json';
      answer = { status: e.httpStatus, headers: extra, body };
    }
    // A client that left before its answer is not a gateway failure: logged and counted as 499 (nginx's "client
    // closed request"), never as the 500 its aborted body read would otherwise become, so it stays out of 5xx alerts.
    const status = input.clientGone?.() ? CLIENT_CLOSED : answer.status;
    logCalls(logOptions, { status, rpc, who, requestId, totalMs: now() - startedAt });
    if (rpc) deps.usage?.record(who, rpc.calls);
    return answer;
  };
}
