/**
 * Errors of the execution pool and their crossing of the thread boundary. Pool refusals map to the wire through
 * core/rpc/errors.ts CORE_ERRORS: a full queue is -32005 with `meta.retryAfterSeconds` (HTTP 429 +
 * Retry-After), a request past its deadline -32002.
 */
import { XoneError, type CoreCode } from '../errors.ts';
import { RPC_ERRORS, RpcError, type RpcErrorName } from '../rpc/errors.ts';
import type { SerializedError } from './types.ts';

export type RpcPoolErrorCode =
  /** The queue (the client's share or the whole) is full: -32005, retry after `meta.retryAfterSeconds`. */
  | CoreCode<'RPC_POOL_BUSY'>
  /** The request passed its deadline, or its client went away, before its job finished: -32002. */
  | CoreCode<'RPC_POOL_DEADLINE'>
  /** The node is shutting down. */
  | CoreCode<'RPC_POOL_CLOSED'>
  /** The worker running the job died (out of memory, crash): -32603. */
  | 'RPC_POOL_WORKER_FAILED';

export class RpcPoolError extends XoneError<RpcPoolErrorCode> {}

/** A thrown value as plain data for postMessage. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof RpcError)
    return { name: 'RpcError', code: err.code, message: err.message, meta: err.data === undefined ? {} : { data: err.data } };
  if (err instanceof XoneError) return { name: err.name, code: err.code, message: err.message, meta: { ...err.meta } };
  const e = err instanceof Error ? err : new Error(String(err));
  // Unexpected failures answer -32603 without detail; the stack travels for the main thread's log line.
  return { name: e.name, code: 'INTERNAL', message: e.message, meta: e.stack ? { stack: e.stack } : {} };
}

/** The error a serialized one stands for: an RpcError keeps its row, anything else becomes a XoneError with its code. */
export function deserializeError(s: SerializedError): Error {
  if (s.name === 'RpcError' && Object.hasOwn(RPC_ERRORS, s.code)) return new RpcError(s.code as RpcErrorName, s.message, s.meta.data);
  return new XoneError(s.code, s.message, s.meta);
}
