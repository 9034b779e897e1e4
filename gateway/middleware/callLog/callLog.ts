import { KNOWN_METHODS } from '../../methods/classify.ts';
import { canonicalJson, shortHash } from '../../rpc/canonical.ts';
import type { Identity } from '../../env.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import { RPC_ERRORS } from '../../rpc/errorTable.ts';
import type { RpcCall, RpcRequest } from '../../rpc/types.ts';

/** The status logged when the client closed the connection before its answer (nginx's 499). */
export const CLIENT_CLOSED = 499;

/** Where log lines go (stdout on Node, console on Workers, an array in tests). */
export type LogSink = (line: Record<string, unknown>) => void;

/** Options of the per-call log. */
export interface CallLogOptions {
  sink: LogSink;
  metrics: GatewayMetrics;
  /** Share of successful calls logged (errors, refusals and calls whose client left, 499, are always logged). */
  successSampleRate?: number;
  random?: () => number;
}

/** One answered request, as the log needs it. */
export interface AnsweredRequest {
  /** The HTTP status (ignored for WebSocket messages). */
  status: number;
  /** WebSocket calls are logged with `transport: "ws"` and no HTTP status, and count no HTTP response. */
  transport?: 'http' | 'ws';
  rpc: RpcRequest | undefined;
  who: Identity | undefined;
  requestId: string;
  totalMs: number;
}

function outcomeOf(call: RpcCall): 'ok' | 'rpc_error' | 'refused' | 'invalid' | 'unavailable' {
  const r = call.response;
  if (!r || !('error' in r)) return 'ok';
  if (r.error.code === RPC_ERRORS.limitExceeded.code) return 'refused';
  if (r.error.code === RPC_ERRORS.unavailable.code) return 'unavailable';
  if (call.invalid || r.error.code === RPC_ERRORS.methodNotAllowed.code || r.error.code === RPC_ERRORS.unauthorized.code) return 'invalid';
  return 'rpc_error';
}

/**
 * Writes one JSON line per JSON-RPC call (not per HTTP request) once the response exists, and records the call
 * metrics. The API key never appears: only its id. The client address is truncated (IPv4 /24, IPv6 /48).
 */
export function logCalls({ sink, metrics, successSampleRate = 0.01, random = Math.random }: CallLogOptions, done: AnsweredRequest): void {
  const { rpc, who, requestId, totalMs } = done;
  const ws = done.transport === 'ws';
  const status = ws ? null : done.status;
  if (!ws) metrics.httpResponse(done.status);
  const transport = ws ? { transport: 'ws' } : {};
  const calls = rpc?.calls ?? [];
  if (calls.length === 0) {
    sink({
      ts: new Date().toISOString(),
      request_id: requestId,
      ...transport,
      batch_index: null,
      key_id: who?.key?.id ?? null,
      ip: who?.ipLog ?? null,
      method: null,
      http_status: status,
      latency_ms_total: round(totalMs),
      bytes_in: null,
    });
    metrics.call('other', 'invalid', 'none', totalMs / 1000);
    return;
  }
  for (const call of calls) {
    const outcome = outcomeOf(call);
    const label = KNOWN_METHODS.has(call.method) ? call.method : 'other';
    metrics.call(label, outcome, call.cache, totalMs / 1000);
    // A call whose client left before its answer (HTTP 499) is no success for the operator: logged always, like errors.
    if (outcome === 'ok' && status !== CLIENT_CLOSED && random() >= successSampleRate) continue;
    const err = call.response && 'error' in call.response ? call.response.error : undefined;
    sink({
      ts: new Date().toISOString(),
      request_id: requestId,
      ...transport,
      batch_index: rpc?.isBatch ? call.index : null,
      key_id: who?.key?.id ?? null,
      ip: who?.ipLog ?? null,
      method: call.method.slice(0, 64),
      params_hash: call.params === undefined ? null : shortHash(canonicalJson(call.params)),
      block_ref: call.blockRef ?? null,
      cache: call.cache,
      limiter: call.limiter,
      upstream: call.upstream ?? null,
      upstream_status: call.upstreamStatus ?? null,
      upstream_error: call.upstreamError ?? null,
      rpc_error_code: err?.code ?? null,
      rpc_error_message: err?.message ?? null,
      http_status: status,
      latency_ms_total: round(totalMs),
      latency_ms_upstream: call.upstreamMs === undefined ? null : round(call.upstreamMs),
      bytes_in: rpc?.bytesIn ?? null,
      bytes_out: call.bytesOut ?? null,
    });
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
