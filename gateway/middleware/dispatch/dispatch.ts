import { RPC_ERRORS } from '../../rpc/errorTable.ts';
import { bodyText } from '../../rpc/serialize.ts';
import type { RpcCall, RpcRequest } from '../../rpc/types.ts';
import { BatchCollector } from './batchCollector.ts';
import { handleCall, type CallDeps } from './handleCall.ts';

/** The X-Cache value for a request: HIT, MISS, PARTIAL or BYPASS over its cacheable calls. */
function xCache(calls: readonly RpcCall[], bypass: boolean): string | undefined {
  if (bypass) return 'BYPASS';
  const seen = calls.filter((c) => c.cache !== 'none' && c.cache !== 'bypass');
  if (seen.length === 0) return undefined;
  const hits = seen.filter((c) => c.cache === 'hit' || c.cache === 'coalesced').length;
  return hits === seen.length ? 'HIT' : hits === 0 ? 'MISS' : 'PARTIAL';
}

/**
 * The last step of the pipeline: answers every admitted call concurrently, then writes the responses in request
 * order. When every call failed for lack of an upstream the request is answered 503 with Retry-After.
 */
export async function answerCalls(
  rpc: RpcRequest,
  deps: CallDeps,
  bypass: boolean,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const todo = rpc.calls.filter((call) => !call.response);
  // One call (the common case) is awaited alone: no array of promises for Promise.all to track. Several share one
  // upstream batch for the calls that need an upstream.
  let failureHeaders: Record<string, string>[];
  if (todo.length === 1) failureHeaders = [await handleCall(todo[0] as RpcCall, deps, bypass)];
  else {
    const batch = new BatchCollector(deps.pool, todo.length, deps.callTimeoutMs);
    failureHeaders = await Promise.all(todo.map((call) => handleCall(call, deps, bypass, batch.slot())));
  }
  const headers: Record<string, string> = {};
  const cacheHeader = xCache(rpc.calls, bypass);
  if (cacheHeader) headers['X-Cache'] = cacheHeader;
  const allUnavailable = rpc.calls.every(
    (call) => call.response && 'error' in call.response && call.response.error.code === RPC_ERRORS.unavailable.code,
  );
  if (allUnavailable) Object.assign(headers, ...failureHeaders);
  return { status: allUnavailable ? 503 : 200, headers, body: bodyText(rpc.calls, rpc.isBatch) };
}
