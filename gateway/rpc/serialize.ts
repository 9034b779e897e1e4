import type { JsonRpcId, JsonRpcResponse, RpcCall } from './types.ts';

/**
 * A result already in JSON text (a cache entry, or an upstream result serialised once to be stored): it is spliced
 * into the response as is instead of being parsed and serialised again. `toJSON` keeps any plain JSON.stringify of a
 * response correct (the slow path).
 */
export class RawResult {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

const idText = (id: JsonRpcId): string => (typeof id === 'number' ? String(id) : JSON.stringify(id));

/** The wire text of one response; a RawResult is spliced without a parse/serialise round trip. */
export function responseText(response: JsonRpcResponse): string {
  if ('result' in response && response.result instanceof RawResult)
    return `{"jsonrpc":"2.0","id":${idText(response.id)},"result":${response.result.json}}`;
  return JSON.stringify(response);
}

/** The body of a request's answer: one response, or the batch's array in request order; records each call's bytes out. */
export function bodyText(calls: readonly RpcCall[], isBatch: boolean): string {
  const parts = calls.map((call) => {
    const text = call.response ? responseText(call.response) : 'null';
    call.bytesOut = text.length;
    return text;
  });
  return isBatch ? `[${parts.join(',')}]` : (parts[0] as string);
}
