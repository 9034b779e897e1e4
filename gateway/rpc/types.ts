/** A JSON-RPC 2.0 id: the spec allows a string, a number or null. */
export type JsonRpcId = string | number | null;

/** The error object of a JSON-RPC response (https://www.jsonrpc.org/specification#error_object). */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** One JSON-RPC response: exactly one of `result` or `error`. */
export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

/** Where a call's answer came from, as the per-call log and the X-Cache header report it. */
export type CacheOutcome = 'hit' | 'miss' | 'bypass' | 'coalesced' | 'none';

/** The limiter's verdict on one call, as logged. */
export interface LimiterLog {
  decision: 'allow' | 'deny' | 'skip';
  scope?: string;
  remaining?: number;
  cost: number;
}

/**
 * One JSON-RPC call inside an HTTP request (a single request has one, a batch has one per element). Middleware
 * fills it in as the pipeline runs; the call-log middleware writes one line per call from it at the end.
 */
export interface RpcCall {
  index: number;
  id: JsonRpcId;
  method: string;
  params: unknown;
  /** Set when the element itself was malformed (answered with -32600 without going further). */
  invalid?: boolean;
  cost: number;
  response?: JsonRpcResponse;
  cache: CacheOutcome;
  limiter: LimiterLog;
  blockRef?: string;
  upstream?: string;
  upstreamStatus?: number;
  upstreamMs?: number;
  /** The last upstream fault behind an unavailable answer (log only). */
  upstreamError?: string;
  /** Length of this call's serialised response. */
  bytesOut?: number;
}

/** The parsed body of one HTTP request. */
export interface RpcRequest {
  isBatch: boolean;
  calls: RpcCall[];
  bytesIn: number;
}

/** Builds a success response for `id`. */
export const rpcResult = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });

/** Builds an error response for `id`. */
export const rpcError = (id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcResponse => ({ jsonrpc: '2.0', id, error });
