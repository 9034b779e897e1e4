import type { ErrorHandler } from 'hono';
import type { GatewayEnv } from './env.ts';
import { toGatewayError } from './rpc/gatewayError.ts';
import { jsonResponse } from './rpc/jsonResponse.ts';
import { bodyText } from './rpc/serialize.ts';
import { rpcError } from './rpc/types.ts';

/**
 * The single place thrown errors become wire responses. A whole-request error answers every call of the request:
 * calls that already have their own answer (a per-element -32005 or -32004) keep it, the rest get this error;
 * a batch stays an array in request order. Unexpected errors become -32603 without internals.
 */
export const onError: ErrorHandler<GatewayEnv> = (err, c) => {
  const e = toGatewayError(err);
  const rpc = c.get('rpc');
  if (!rpc) return jsonResponse(c, JSON.stringify(rpcError(null, e.toRpc())), e.httpStatus, e.headers);
  for (const call of rpc.calls) call.response ??= rpcError(call.id, e.toRpc());
  return jsonResponse(c, bodyText(rpc.calls, rpc.isBatch), e.httpStatus, e.headers);
};
