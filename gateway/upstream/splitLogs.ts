import type { JsonRpcErrorObject } from '../rpc/types.ts';
import type { ForwardResult } from './pool.ts';

/** How one call is forwarded (the pool's forward, or a batch slot's). */
export type ForwardFn = (method: string, params: unknown, deadlineMs: number, minBlock?: number) => Promise<ForwardResult>;

/** Most ranges one call is cut into. */
const MAX_PARTS = 16;

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i;

/**
 * eth_getLogs over a numeric range wider than `chunk` blocks, split into ranges of `chunk` blocks sent at once (the
 * pool spreads them over the upstreams, least loaded first) and joined in block order (issue #17: "eth_getLogs ranges
 * split across upstreams beyond a configured size"). A filter with `blockHash`, tags (`latest`, ...) or a range
 * within `chunk` goes as it is. Any chunk's error is the call's error (a partial list would be a wrong answer);
 * undefined when the call is not split. At most MAX_PARTS ranges per call (wider ones beyond that).
 */
export function splitGetLogs(forward: ForwardFn, params: unknown, deadlineMs: number, chunk: number): Promise<ForwardResult> | undefined {
  if (chunk < 1 || !Array.isArray(params) || params.length !== 1) return undefined;
  const filter = params[0] as Record<string, unknown> | null;
  if (filter === null || typeof filter !== 'object' || 'blockHash' in filter) return undefined;
  const { fromBlock, toBlock } = filter;
  if (typeof fromBlock !== 'string' || typeof toBlock !== 'string' || !QUANTITY.test(fromBlock) || !QUANTITY.test(toBlock))
    return undefined;
  const from = parseInt(fromBlock, 16);
  const to = parseInt(toBlock, 16);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to - from + 1 <= chunk) return undefined;
  // Bounded fan-out: a huge range is cut into MAX_PARTS wider ranges, not millions of requests.
  chunk = Math.max(chunk, Math.ceil((to - from + 1) / MAX_PARTS));
  const parts: Promise<ForwardResult>[] = [];
  for (let start = from; start <= to; start += chunk) {
    const end = Math.min(to, start + chunk - 1);
    const sub = { ...filter, fromBlock: `0x${start.toString(16)}`, toBlock: `0x${end.toString(16)}` };
    parts.push(forward('eth_getLogs', [sub], deadlineMs, end));
  }
  return Promise.all(parts).then((answers) => {
    const failed = answers.find((a) => a.error || !Array.isArray(a.result));
    if (failed) return failed.error ? failed : { ...failed, error: notAList };
    const upstreams = [...new Set(answers.map((a) => a.upstream))];
    return {
      result: answers.flatMap((a) => a.result as unknown[]),
      upstream: upstreams.join('+'),
      status: 200,
      ms: Math.max(...answers.map((a) => a.ms)),
    };
  });
}

const notAList: JsonRpcErrorObject = { code: -32603, message: 'internal error: an upstream answered eth_getLogs without a list' };
