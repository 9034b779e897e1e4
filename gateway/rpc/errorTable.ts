/**
 * The one table of JSON-RPC errors the gateway emits, with the HTTP status used when the error answers a whole
 * request. Codes follow JSON-RPC 2.0 and EIP-1474 (https://eips.ethereum.org/EIPS/eip-1474#error-codes).
 * Per-element errors inside a batch always travel in an HTTP 200 array.
 */
export const RPC_ERRORS = {
  /** Body is not valid JSON. */
  parse: { code: -32700, message: 'parse error', http: 400 },
  /** Not a JSON-RPC request object, an empty batch, or a structural limit (batch size, depth) was exceeded. */
  invalidRequest: { code: -32600, message: 'invalid request', http: 400 },
  /** Body larger than `limits.maxBodyBytes`. */
  tooLarge: { code: -32600, message: 'request too large', http: 413 },
  /** Parameters the gateway itself must understand (a block reference) are malformed. */
  invalidParams: { code: -32602, message: 'invalid params', http: 200 },
  /** Unexpected failure inside the gateway. */
  internal: { code: -32603, message: 'internal error', http: 500 },
  /** Missing, unknown, revoked, disabled or expired API key, or a key used from a disallowed IP/Origin. 401: clients must not retry. */
  unauthorized: { code: -32000, message: 'unauthorized', http: 401 },
  /** The upstream(s) cannot serve: none healthy, all overloaded, or timed out. */
  unavailable: { code: -32002, message: 'resource unavailable', http: 503 },
  /** Two upstreams asked for a `consensus.methods` call gave different answers (no answer is trusted). */
  disagreement: { code: -32002, message: 'resource unavailable: upstreams disagree', http: 503 },
  /** Method denied by the tier or key policy (EIP-1474 "method not supported"). */
  methodNotAllowed: { code: -32004, message: 'method not supported', http: 200 },
  /** A rate bucket refused the call; data = {scope, limit, remaining, retryAfterMs, cost}. */
  limitExceeded: { code: -32005, message: 'limit exceeded', http: 429 },
  /** A filter id that names no filter, or one on an upstream that is gone (geth's code and message). */
  filterNotFound: { code: -32000, message: 'filter not found', http: 200 },
  /** The caller's own deadline passed while waiting (for a coalesced leader or the upstream). */
  timeout: { code: -32603, message: 'request timed out', http: 504 },
} as const;

/** A name in the table. */
export type RpcErrorKind = keyof typeof RPC_ERRORS;
