/**
 * The one base class for errors the core raises on purpose. `code` is a stable, typed identifier that callers and
 * tests match on; `meta` carries the values that explain it (both sides of a mismatch, an offset, a field name) and
 * survives `postMessage` through `toObject()`.
 */
export class XoneError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly meta: Readonly<Record<string, unknown>>;

  constructor(code: Code, message: string, meta: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.meta = meta;
  }

  /** A plain object that can cross a worker boundary or be logged as JSON. */
  toObject(): { name: string; code: Code; message: string; meta: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, meta: this.meta };
  }
}

/**
 * Codes of the errors core layers raise for a JSON-RPC client to see. Each has its wire error in core/rpc/errors.ts
 * (`CORE_ERRORS`, a table typed total over this union: a code added here fails the type-check until it has a row);
 * any other code that reaches the RPC server is an internal error (-32603). A layer names the ones it raises in its
 * own code type through `CoreCode<...>`, so renaming one here fails the type-check there too.
 */
export type CoreErrorCode =
  | 'EXECUTION_REVERTED' // execution hit REVERT; `meta.data` holds the revert bytes
  | 'VM_ERROR' // an EVM failure other than revert ("out of gas", "gas required exceeds allowance (N)")
  | 'EVM_TIMEOUT' // eth_call / eth_estimateGas ran past --rpc.evmtimeout
  | 'TXPOOL_REJECTED' // the tx pool refused a transaction (geth's message)
  | 'STATE_UNAVAILABLE' // the state after that block is not kept (pruned, or not imported)
  | 'STORE_READ_TIMEOUT' // a store read passed its budget or its caller's deadline, or its caller aborted it
  | 'STORE_RESULT_LIMIT' // a store scan matched more rows than its caller's limit
  | 'RPC_POOL_BUSY' // the RPC execution pool cannot queue the call (client share or pool full); meta.retryAfterSeconds
  | 'RPC_POOL_DEADLINE' // the request passed its deadline (or its client left) while its pool job waited or ran
  | 'RPC_POOL_CLOSED'; // the execution pool is shutting down

/** One of the `CoreErrorCode`s, as a layer's own error-code union lists it. */
export type CoreCode<C extends CoreErrorCode> = C;

/** An error an adapter raises for the client directly (the RPC backend's views translate their layers' errors). */
export class CoreError extends XoneError<CoreErrorCode> {}
