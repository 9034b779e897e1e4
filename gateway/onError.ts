import type { ErrorHandler } from 'hono';
import type { GatewayEnv } from './env.ts';
import { toGatewayError } from './rpc/gatewayError.ts';
import { rpcError } from './rpc/types.ts';

/**
 * The single place thrown errors become wire responses. A whole-request error answers every call of the request:
 * calls that already have their own answer (a per-element -32005 or -32004) keep it, the rest get this error;
 * a batch stays an array in request order. Unexpected errors become -32603 without internals.
 */
export const onError: ErrorHandler<GatewayEnv> = (err, c) => {
  const e = toGatewayError(err);
  const rpc = c.get('rpc');
  const headers: Record<string, string> = { ...(c.get('extraHeaders') ?? {}), ...e.headers, 'content-type': 'application/json' };
  if (!rpc) return c.body(JSON.stringify(rpcError(null, e.toRpc())), e.httpStatus as 400, headers);
  const parts = rpc.calls.map((call) => {
    call.response ??= rpcError(call.id, e.toRpc());
    const text = JSON.stringify(call.response);
    call.bytesOut = text.length;
    return text;
  });
  return c.body(rpc.isBatch ? `[${parts.join(',')}]` : (parts[0] as string), e.httpStatus as 400, headers);
};
