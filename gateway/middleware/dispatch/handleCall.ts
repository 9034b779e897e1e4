import type { Coalescer } from '../../cache/coalescer.ts';
import { toQuantity } from '../../cache/blockRef.ts';
import { planCache, type HeadView } from '../../cache/plan.ts';
import type { CacheStore } from '../../cache/types.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { GatewayMetrics } from '../../metrics/types.ts';
import { toGatewayError } from '../../rpc/gatewayError.ts';
import { RawResult } from '../../rpc/serialize.ts';
import { rpcError, rpcResult, type RpcCall } from '../../rpc/types.ts';
import type { ForwardResult, UpstreamPool } from '../../upstream/pool.ts';
import { splitGetLogs } from '../../upstream/splitLogs.ts';
import type { ForwardSlot } from './batchCollector.ts';

/** What answering one call needs. */
export interface CallDeps {
  pool: UpstreamPool;
  head: HeadView;
  cache?: CacheStore;
  coalescer: Coalescer<ForwardResult>;
  metrics: GatewayMetrics;
  cacheConfig: GatewayConfig['cache'];
  callTimeoutMs: number;
  /** eth_getLogs ranges wider than this many blocks are split (0: never). */
  getLogsSplitBlocks?: number;
}

/**
 * Answers one admitted call: from the head (eth_blockNumber), from the cache, by joining an identical in-flight
 * call, or from an upstream (storing the result when the plan accepts it). Sets the call's response and the fields
 * its log line reports; never throws (an error becomes the call's JSON-RPC error). With a `slot` (a call of a batch)
 * the upstream call goes through it (gathered into one upstream batch), and a call that needs no upstream says so.
 */
export async function handleCall(call: RpcCall, deps: CallDeps, bypass: boolean, slot?: ForwardSlot): Promise<Record<string, string>> {
  try {
    return await answerCall(call, deps, bypass, slot);
  } finally {
    slot?.skip();
  }
}

async function answerCall(call: RpcCall, deps: CallDeps, bypass: boolean, slot: ForwardSlot | undefined): Promise<Record<string, string>> {
  // A wide eth_getLogs goes out as several ranges at once (each on its own, over the upstreams), not in the batch.
  // The pool's methods are bound only on that path: a cache hit forwards nothing.
  const forward: ForwardSlot['forward'] = (method, params, deadlineMs, minBlock) => {
    const split =
      method === 'eth_getLogs'
        ? splitGetLogs(deps.pool.forward.bind(deps.pool), params, deadlineMs, deps.getLogsSplitBlocks ?? 0)
        : undefined;
    if (!split) return slot ? slot.forward(method, params, deadlineMs, minBlock) : deps.pool.forward(method, params, deadlineMs, minBlock);
    slot?.skip();
    return split;
  };
  const plan = deps.cache ? planCache(call.method, call.params, deps.head, deps.cacheConfig) : { kind: 'none' as const, cls: 'off' };
  if ('blockRef' in plan) call.blockRef = plan.blockRef;
  try {
    if (plan.kind === 'head' && deps.head.state) {
      call.cache = 'hit';
      deps.metrics.cacheLookup('head', 'hit');
      call.response = rpcResult(call.id, toQuantity(deps.head.state.latest));
      return {};
    }
    if (plan.kind !== 'cache' || !deps.cache) {
      const fr = await forward(call.method, call.params, deps.callTimeoutMs);
      applyForward(call, fr);
      return {};
    }
    const cache = deps.cache;
    if (!bypass) {
      const hit = await cache.get(plan.key);
      if (hit !== undefined) {
        call.cache = 'hit';
        deps.metrics.cacheLookup(plan.cls, 'hit');
        // Spliced into the response as stored: no parse and re-serialise per hit.
        call.response = rpcResult(call.id, new RawResult(hit));
        return {};
      }
    }
    // A call that joins an identical one in flight sends nothing: its batch need not wait for it.
    if (deps.coalescer.has(plan.key)) slot?.skip();
    const { value, coalesced } = await deps.coalescer.run(plan.key, deps.callTimeoutMs, async () => {
      const fr = await forward(call.method, plan.params, deps.callTimeoutMs, plan.minBlock);
      if (!fr.error) {
        const { ttlMs, blockHash } = plan.accept(fr.result);
        if (ttlMs > 0) {
          // Serialised once: the same text is stored and spliced into every answer (leader and followers).
          const json = JSON.stringify(fr.result);
          await cache.set(plan.key, json, ttlMs, blockHash);
          return { upstream: fr.upstream, status: fr.status, ms: fr.ms, result: new RawResult(json) };
        }
      }
      return fr;
    });
    call.cache = bypass ? 'bypass' : coalesced ? 'coalesced' : 'miss';
    deps.metrics.cacheLookup(plan.cls, bypass ? 'bypass' : coalesced ? 'coalesced' : 'miss');
    applyForward(call, value);
    return {};
  } catch (err) {
    const e = toGatewayError(err);
    if (e.upstream) {
      call.upstream = e.upstream.name;
      call.upstreamError = e.upstream.problem;
    }
    call.response = rpcError(call.id, e.toRpc());
    return { ...e.headers };
  }
}

function applyForward(call: RpcCall, fr: ForwardResult): void {
  call.upstream = fr.upstream;
  call.upstreamStatus = fr.status;
  call.upstreamMs = fr.ms;
  call.response = fr.error ? rpcError(call.id, fr.error) : rpcResult(call.id, fr.result);
}
