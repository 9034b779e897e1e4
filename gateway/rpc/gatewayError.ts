import { RPC_ERRORS, type RpcErrorKind } from './errorTable.ts';
import type { JsonRpcErrorObject } from './types.ts';

/**
 * The error every gateway layer throws on purpose. `kind` selects the row of the error table (code, message, HTTP
 * status); `detail` refines the message; `data` travels in the JSON-RPC error; `headers` go on the HTTP response
 * (Retry-After, RateLimit). The app's single onError turns it into the wire response.
 */
export class GatewayError extends Error {
  readonly kind: RpcErrorKind;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  /** For the operator's log line only, never the wire: which upstream failed last and how. */
  readonly upstream?: { name: string; problem: string };

  constructor(
    kind: RpcErrorKind,
    detail?: string,
    data?: unknown,
    headers: Record<string, string> = {},
    upstream?: { name: string; problem: string },
  ) {
    super(detail ?? RPC_ERRORS[kind].message);
    this.name = 'GatewayError';
    this.kind = kind;
    this.data = data;
    this.headers = headers;
    if (upstream) this.upstream = upstream;
  }

  /** HTTP status when this error answers the whole request. */
  get httpStatus(): number {
    return RPC_ERRORS[this.kind].http;
  }

  /** The JSON-RPC error object. */
  toRpc(): JsonRpcErrorObject {
    const e: JsonRpcErrorObject = { code: RPC_ERRORS[this.kind].code, message: this.message };
    if (this.data !== undefined) e.data = this.data;
    return e;
  }
}

/** Turns any thrown value into a GatewayError (unexpected ones become `internal`, without leaking internals). */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('internal');
}
