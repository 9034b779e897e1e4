import { GatewayError } from './gatewayError.ts';
import { RPC_ERRORS } from './errorTable.ts';
import type { JsonRpcId, RpcCall, RpcRequest } from './types.ts';

/** Structural limits applied while parsing one request body. */
export interface ParseLimits {
  maxBatchSize: number;
  maxDepth: number;
}

/** Nesting depth of a JSON value (a scalar is 0); stops counting once `limit` is exceeded. */
export function jsonDepth(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let max = depth + 1;
  const items = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  for (const item of items) {
    max = Math.max(max, jsonDepth(item, limit, depth + 1));
    if (max > limit) return max;
  }
  return max;
}

const isId = (v: unknown): v is JsonRpcId => v === null || typeof v === 'string' || typeof v === 'number';

/** A call with every field present (one object shape for all calls: spreads of a shared base showed in profiles). */
function newCall(index: number, id: JsonRpcId, method: string, params: unknown, invalid: boolean): RpcCall {
  const call: RpcCall = { index, id, method, params, cost: 0, cache: 'none', limiter: { decision: 'skip', cost: 0 } };
  if (invalid) call.invalid = true;
  return call;
}

/** Turns one element into a call; a malformed element becomes an `invalid` call answered with -32600. */
function toCall(raw: unknown, index: number): RpcCall {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return newCall(index, null, '', undefined, true);
  const o = raw as Record<string, unknown>;
  const id = isId(o.id) ? o.id : null;
  const paramsOk = o.params === undefined || Array.isArray(o.params) || (typeof o.params === 'object' && o.params !== null);
  if (o.jsonrpc !== '2.0' || typeof o.method !== 'string' || o.method.length === 0 || o.method.length > 128 || !paramsOk) {
    return newCall(index, id, typeof o.method === 'string' ? o.method.slice(0, 128) : '', undefined, true);
  }
  return newCall(index, id, o.method, o.params ?? [], false);
}

/**
 * Parses a JSON-RPC body (single call or batch) under the structural limits. Whole-request problems (bad JSON, empty
 * or oversized batch, too deep) throw; a malformed element of a batch becomes an invalid call so the rest still runs
 * and the response keeps the request's order.
 */
export function parseRpcBody(text: string, limits: ParseLimits): RpcRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('parse');
  }
  if (jsonDepth(value, limits.maxDepth + 1) > limits.maxDepth + 1) {
    throw new GatewayError('invalidRequest', `${RPC_ERRORS.invalidRequest.message}: JSON nested deeper than ${limits.maxDepth}`);
  }
  const bytesIn = text.length;
  if (Array.isArray(value)) {
    if (value.length === 0) throw new GatewayError('invalidRequest', 'invalid request: empty batch');
    if (value.length > limits.maxBatchSize) {
      throw new GatewayError('invalidRequest', `invalid request: batch of ${value.length} exceeds ${limits.maxBatchSize}`);
    }
    return { isBatch: true, calls: value.map(toCall), bytesIn };
  }
  const call = toCall(value, 0);
  if (call.invalid) throw new GatewayError('invalidRequest');
  return { isBatch: false, calls: [call], bytesIn };
}
