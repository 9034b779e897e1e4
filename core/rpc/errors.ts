/**
 * The one JSON-RPC error table of the node's RPC server and the one function that turns any thrown value into the
 * wire error. Codes follow JSON-RPC 2.0 (https://www.jsonrpc.org/specification#error_object), EIP-1474
 * (https://eips.ethereum.org/EIPS/eip-1474) and geth's conventions (rpc/errors.go, internal/ethapi/errors.go), so
 * clients written against geth decode our errors unchanged. `docs/errors.md` lists the same rows; a test keeps the
 * two equal.
 */
import { XoneError, type CoreErrorCode } from '../errors.ts';

/** One row of the error table: wire code, default message, HTTP status when it ends a whole request, and when. */
export interface RpcErrorEntry {
  readonly code: number;
  readonly message: string;
  readonly httpStatus: number;
  readonly when: string;
}

/** Every error the server puts on the wire. Keys are stable names used by tests and the reference page. */
export const RPC_ERRORS = {
  /** The body is not JSON at all. */
  PARSE_ERROR: { code: -32700, message: 'parse error', httpStatus: 200, when: 'The body (or WebSocket frame) is not valid JSON.' },
  /** Valid JSON that is not a JSON-RPC 2.0 request object. */
  INVALID_REQUEST: {
    code: -32600,
    message: 'invalid request',
    httpStatus: 200,
    when: 'A message without "jsonrpc":"2.0", without a string method, with an object/array id, or not an object.',
  },
  EMPTY_BATCH: { code: -32600, message: 'empty batch', httpStatus: 200, when: 'The body is an empty array.' },
  BATCH_TOO_LARGE: {
    code: -32600,
    message: 'batch too large',
    httpStatus: 200,
    when: 'A batch has more calls than `batchLimit` (default 1,000); nothing in it runs; one error with the first call id.',
  },
  TOO_DEEP: {
    code: -32600,
    message: 'request nesting too deep',
    httpStatus: 200,
    when: 'JSON nesting deeper than `maxDepth` (default 64).',
  },
  BODY_TOO_LARGE: {
    code: -32600,
    message: 'content length too large',
    httpStatus: 413,
    when: 'The HTTP body exceeds `maxBodyBytes` (default 5 MB) or a WebSocket message exceeds the same limit.',
  },
  BAD_CONTENT_TYPE: {
    code: -32600,
    message: 'invalid content type, only application/json is supported',
    httpStatus: 415,
    when: 'POST with a Content-Type other than application/json (as geth).',
  },
  METHOD_NOT_FOUND: {
    code: -32601,
    message: 'the method X does not exist/is not available',
    httpStatus: 200,
    when: 'Unknown method, a dev-only method (the evm_, anvil_ and hardhat_ families) off --dev, or a namespace whose dependency this node does not have (e.g. txpool_ without a pool).',
  },
  SUBSCRIPTION_NOT_FOUND: {
    code: -32601,
    message: 'no "X" subscription in eth namespace',
    httpStatus: 200,
    when: 'eth_subscribe with an unknown kind.',
  },
  NOTIFICATIONS_UNSUPPORTED: { code: -32601, message: 'notifications not supported', httpStatus: 200, when: 'eth_subscribe over HTTP.' },
  INVALID_PARAMS: {
    code: -32602,
    message: 'invalid argument N: <reason>',
    httpStatus: 200,
    when: 'A parameter fails strict decoding; the message names the argument index and geth\'s reason ("hex string without 0x prefix").',
  },
  INTERNAL: {
    code: -32603,
    message: 'internal error',
    httpStatus: 200,
    when: 'Any unexpected failure; the message never carries a stack.',
  },
  EXECUTION_REVERTED: {
    code: 3,
    message: 'execution reverted: <reason>',
    httpStatus: 200,
    when: 'eth_call / eth_estimateGas hit REVERT; data is the revert bytes as hex; the reason is decoded from Error(string) or Panic(uint256).',
  },
  SERVER_ERROR: {
    code: -32000,
    message: '<reason>',
    httpStatus: 200,
    when: 'geth\'s generic code: tx-pool rejections ("nonce too low", "already known", ...), "header not found", "filter not found", VM errors, eth_call / estimateGas / createAccessList stopped at --rpc.evmtimeout ("execution aborted (timeout = 5s)").',
  },
  TIMEOUT: {
    code: -32002,
    message: 'request timed out',
    httpStatus: 200,
    when: 'A call (or the rest of a batch) passed its deadline (`callTimeoutMs`, 30 s) while it waited for or ran in the execution pool, or its client left; or a store read passed its own read deadline.',
  },
  RESPONSE_TOO_LARGE: {
    code: -32003,
    message: 'response too large',
    httpStatus: 200,
    when: 'A batch response passed `batchResponseMaxBytes` (default 25 MB): the remaining calls get this error; or one debug_trace* / trace_* answer passed `traceMaxBytes` (default 100 MB).',
  },
  LIMIT_EXCEEDED: {
    code: -32005,
    message: 'limit exceeded',
    httpStatus: 429,
    when: 'Rate bucket empty for the client IP, or the execution pool cannot queue the call (the client already has 16 waiting, or the pool is full), both at once with HTTP 429 + Retry-After; load shedding (event loop 100 ms late while pool calls wait) refuses an expensive method; eth_getLogs range/result caps.',
  },
  SIM_NONCE_TOO_LOW: {
    code: -38010,
    message: 'nonce too low',
    httpStatus: 200,
    when: "eth_simulateV1 (validation on): a call's nonce is below the sender's.",
  },
  SIM_NONCE_TOO_HIGH: {
    code: -38011,
    message: 'nonce too high',
    httpStatus: 200,
    when: "eth_simulateV1 (validation on): a call's nonce is above the sender's.",
  },
  SIM_BASE_FEE_TOO_LOW: {
    code: -38012,
    message: 'max fee per gas less than block base fee',
    httpStatus: 200,
    when: "eth_simulateV1 (validation on): a call's fee cap is below its block's base fee.",
  },
  SIM_INTRINSIC_GAS: {
    code: -38013,
    message: 'intrinsic gas too low',
    httpStatus: 200,
    when: "eth_simulateV1: a call's gas is below its intrinsic gas.",
  },
  SIM_INSUFFICIENT_FUNDS: {
    code: -38014,
    message: 'insufficient funds for gas * price + value',
    httpStatus: 200,
    when: "eth_simulateV1: the sender cannot pay a call's gas and value.",
  },
  SIM_BLOCK_GAS_LIMIT: {
    code: -38015,
    message: 'block gas limit reached',
    httpStatus: 200,
    when: "eth_simulateV1: a block's calls ask for more gas than its gas limit.",
  },
  SIM_BLOCK_NUMBER_ORDER: {
    code: -38020,
    message: 'block numbers must be in order',
    httpStatus: 200,
    when: "eth_simulateV1: a block number override is not above the previous block's.",
  },
  SIM_TIMESTAMP_ORDER: {
    code: -38021,
    message: 'block timestamps must be in order',
    httpStatus: 200,
    when: "eth_simulateV1: a time override is not above the previous block's.",
  },
  SIM_MOVE_TO_ITSELF: {
    code: -38022,
    message: 'account requested to be moved to itself',
    httpStatus: 200,
    when: "eth_simulateV1: movePrecompileToAddress names the precompile's own address.",
  },
  SIM_SENDER_NOT_EOA: {
    code: -38024,
    message: 'sender is not an EOA',
    httpStatus: 200,
    when: "eth_simulateV1 (validation on): a call's sender has code (EIP-3607).",
  },
  SIM_INITCODE_TOO_LARGE: {
    code: -38025,
    message: 'max initcode size exceeded',
    httpStatus: 200,
    when: "eth_simulateV1: a creation's init code exceeds 49,152 bytes (EIP-3860).",
  },
  SIM_TOO_MANY_BLOCKS: {
    code: -38026,
    message: 'too many blocks',
    httpStatus: 200,
    when: 'eth_simulateV1: more than 256 blocks (gap blocks counted).',
  },
  SIM_TIMEOUT: {
    code: -32016,
    message: 'execution timeout',
    httpStatus: 200,
    when: 'eth_simulateV1 ran past its time budget (`evmTimeoutMs`).',
  },
} as const satisfies Record<string, RpcErrorEntry>;

export type RpcErrorName = keyof typeof RPC_ERRORS;

/** The error object as it goes on the wire. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** An error meant for the wire: a table row plus an optional specific message and data. */
export class RpcError extends XoneError<RpcErrorName> {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(name: RpcErrorName, message?: string, data?: unknown) {
    super(name, message ?? RPC_ERRORS[name].message, data === undefined ? {} : { data });
    this.rpcCode = RPC_ERRORS[name].code;
    this.data = data;
  }

  /** HTTP status to use when this error is the whole answer to an HTTP request. */
  get httpStatus(): number {
    return RPC_ERRORS[this.code].httpStatus;
  }
}

/** geth: "the method X does not exist/is not available". */
export const methodNotFound = (method: string): RpcError =>
  new RpcError('METHOD_NOT_FOUND', `the method ${method} does not exist/is not available`);

/** geth: "invalid argument N: reason". */
export const invalidArgument = (index: number, reason: string): RpcError =>
  new RpcError('INVALID_PARAMS', `invalid argument ${index}: ${reason}`);

/** How one core error code reaches the wire: its row, and which message goes out. */
export interface CoreErrorRow {
  readonly rpc: RpcErrorName;
  /** `own`: the core error's message (geth's wording, made by the layer); `row`: the row's default message. */
  readonly message: 'own' | 'row';
  /** Who raises it and when (docs/errors.md lists the same). */
  readonly when: string;
}

/**
 * Every core error code clients may see (`CoreErrorCode`, core/errors.ts) and its wire error. Total by type: a code
 * added to or renamed in `CoreErrorCode` fails the type-check here instead of reaching the wire as -32603. A
 * XoneError with any other code is an internal error.
 */
export const CORE_ERRORS = {
  EXECUTION_REVERTED: {
    rpc: 'EXECUTION_REVERTED',
    message: 'own',
    when: 'eth_call / eth_estimateGas / eth_createAccessList hit REVERT; `meta.data` (the revert bytes) becomes `data`.',
  },
  VM_ERROR: {
    rpc: 'SERVER_ERROR',
    message: 'own',
    when: 'An EVM failure other than revert ("out of gas", "gas required exceeds allowance (N)").',
  },
  EVM_TIMEOUT: {
    rpc: 'SERVER_ERROR',
    message: 'own',
    when: 'eth_call / eth_estimateGas ran past `evmTimeoutMs`: "execution aborted (timeout = 5s)".',
  },
  TXPOOL_REJECTED: { rpc: 'SERVER_ERROR', message: 'own', when: 'The tx pool (or, on a follower, the producer) refused a transaction.' },
  STATE_UNAVAILABLE: { rpc: 'SERVER_ERROR', message: 'own', when: 'A state read at a block whose state is not kept.' },
  STORE_READ_TIMEOUT: {
    rpc: 'TIMEOUT',
    message: 'row',
    when: "A store read passed the store's read deadline (2 s) or the call's deadline, checked between rows of a scan.",
  },
  STORE_RESULT_LIMIT: {
    rpc: 'LIMIT_EXCEEDED',
    message: 'own',
    when: 'eth_getLogs matched more than `logsMaxResults` logs: "query returned more than N results" (the scan stops there).',
  },
  RPC_POOL_BUSY: {
    rpc: 'LIMIT_EXCEEDED',
    message: 'own',
    when: 'The execution pool cannot queue the call (the client has 16 waiting, or the pool is full): refused at once; `meta.retryAfterSeconds` becomes HTTP 429 + Retry-After.',
  },
  RPC_POOL_DEADLINE: {
    rpc: 'TIMEOUT',
    message: 'row',
    when: 'The request passed its deadline, or its client left, while its execution pool job waited or ran.',
  },
  RPC_POOL_CLOSED: { rpc: 'SERVER_ERROR', message: 'own', when: 'The node is shutting down its execution pool.' },
} as const satisfies Record<CoreErrorCode, CoreErrorRow>;

const isCoreErrorCode = (code: string): code is CoreErrorCode => Object.hasOwn(CORE_ERRORS, code);

const hexOf = (v: unknown): unknown =>
  v instanceof Uint8Array ? '0x' + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') : v;

/**
 * The one mapping from any thrown value to the wire error: RpcError keeps its row; a XoneError whose code is a
 * `CoreErrorCode` gets its CORE_ERRORS row (with its own message or the row's, and `meta.data` as data); everything
 * else is -32603 "internal error" (no stack, no internals leak).
 */
export function toWireError(err: unknown): WireError {
  if (err instanceof RpcError)
    return err.data === undefined
      ? { code: err.rpcCode, message: err.message }
      : { code: err.rpcCode, message: err.message, data: err.data };
  if (err instanceof XoneError && isCoreErrorCode(err.code)) {
    const row: CoreErrorRow = CORE_ERRORS[err.code];
    const rpc = RPC_ERRORS[row.rpc];
    const data = hexOf(err.meta.data);
    const wire: WireError = { code: rpc.code, message: row.message === 'own' ? err.message : rpc.message };
    if (data !== undefined) wire.data = data;
    return wire;
  }
  return { code: RPC_ERRORS.INTERNAL.code, message: RPC_ERRORS.INTERNAL.message };
}
