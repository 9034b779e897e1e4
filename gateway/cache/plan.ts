import type { GatewayConfig } from '../config/types.ts';
import { resolveBlockRef, toQuantity } from './blockRef.ts';
import { canonicalJson } from '../rpc/canonical.ts';
import { classify } from '../methods/classify.ts';
import type { HeadState } from './head.ts';

/** How one call meets the cache. */
export type CachePlan =
  | { kind: 'none'; cls: string; blockRef?: string }
  | { kind: 'head'; cls: 'head' }
  | {
      kind: 'cache';
      cls: string;
      key: string;
      /** Params to forward on a miss (tags rewritten to the block the key names). */
      params: unknown;
      /** The block height the answer needs: only an upstream holding it should be asked (issue #17 item 2). */
      minBlock?: number;
      blockRef?: string;
      /** TTL for this result, 0 = do not store; the block hash tag for unfinalized entries. */
      accept(result: unknown): { ttlMs: number; blockHash?: string };
    };

/** What the planner reads: the served head and the tracker's height → hash map. */
export interface HeadView {
  state: HeadState | undefined;
  hashAt(n: number): string | undefined;
}

type CacheTtls = GatewayConfig['cache'];

const nonNull = (r: unknown) => r !== null && r !== undefined;

/**
 * Decides whether and how a call is cached. Tags resolve against the one monotonic head; a numbered block at or
 * below `finalized` gets a long TTL and a key by number; an unfinalized one gets a key that includes the block hash
 * the gateway knows for that height (none known → not cached) and is evicted when that block is replaced; blocks
 * beyond the head are never cached; null and error results are never cached.
 */
export function planCache(method: string, params: unknown, head: HeadView, ttl: CacheTtls): CachePlan {
  const mc = classify(method);
  const args = Array.isArray(params) ? params : [];
  const base = (suffix = '') => `c:${method}:${canonicalJson(params)}${suffix}`;
  switch (mc.cls) {
    case 'never':
      return { kind: 'none', cls: 'never' };
    case 'head':
      return head.state ? { kind: 'head', cls: 'head' } : { kind: 'none', cls: 'head' };
    case 'static':
      return { kind: 'cache', cls: 'static', key: base(), params, accept: (r) => ({ ttlMs: nonNull(r) ? ttl.finalizedTtlMs : 0 }) };
    case 'realtime':
      return { kind: 'cache', cls: 'realtime', key: base(), params, accept: (r) => ({ ttlMs: nonNull(r) ? ttl.realtimeTtlMs : 0 }) };
    case 'blockHash':
      return { kind: 'cache', cls: 'blockHash', key: base(), params, accept: (r) => ({ ttlMs: nonNull(r) ? ttl.finalizedTtlMs : 0 }) };
    case 'tx':
      // A mined transaction can still move with a reorg until its block is final: cache only then.
      return {
        kind: 'cache',
        cls: 'tx',
        key: base(),
        params,
        accept: (r) => {
          const bn = (r as { blockNumber?: unknown } | null)?.blockNumber;
          const final = typeof bn === 'string' && head.state !== undefined && parseInt(bn, 16) <= head.state.finalized;
          return { ttlMs: final ? ttl.finalizedTtlMs : 0 };
        },
      };
    case 'logs':
      return planLogs(method, args, head, ttl);
    case 'block':
      return planBlock(method, args, mc, head, ttl);
  }
}

function planBlock(
  method: string,
  args: unknown[],
  mc: { param: number; eip1898?: boolean; verify?: 'hash' | 'receipts' },
  head: HeadView,
  ttl: CacheTtls,
): CachePlan {
  const ref = resolveBlockRef(args[mc.param], head.state);
  if (ref.kind === 'uncacheable') return { kind: 'none', cls: 'block', blockRef: ref.label };
  const withRef = (v: unknown) => {
    const copy = [...args];
    copy[mc.param] = v;
    return copy;
  };
  if (ref.kind === 'hash') {
    const params = withRef(mc.eip1898 ? { blockHash: ref.hash } : ref.hash);
    return {
      kind: 'cache',
      cls: 'block',
      key: `c:${method}:${canonicalJson(params)}`,
      params,
      blockRef: ref.label,
      accept: (r) => ({ ttlMs: nonNull(r) ? ttl.finalizedTtlMs : 0 }),
    };
  }
  const state = head.state;
  if (!state || ref.n > state.latest) return { kind: 'none', cls: 'block', blockRef: ref.label };
  const numbered = withRef(toQuantity(ref.n));
  if (ref.n <= state.finalized) {
    return {
      kind: 'cache',
      cls: 'finalized',
      key: `c:${method}:${canonicalJson(numbered)}`,
      params: numbered,
      minBlock: ref.n,
      blockRef: ref.label,
      accept: (r) => ({ ttlMs: nonNull(r) ? ttl.finalizedTtlMs : 0 }),
    };
  }
  const hash = head.hashAt(ref.n);
  if (!hash) return { kind: 'none', cls: 'unfinalized', blockRef: ref.label };
  // Pinned by hash where the method allows it, so the upstream answers for exactly the block the key names.
  const params = mc.eip1898 ? withRef({ blockHash: hash }) : numbered;
  return {
    kind: 'cache',
    cls: 'unfinalized',
    key: `c:${method}:${canonicalJson(numbered)}@${hash}`,
    params,
    minBlock: ref.n,
    blockRef: ref.label,
    accept: (r) => ({ ttlMs: nonNull(r) && matchesBlock(r, hash, mc.verify) ? ttl.unfinalizedTtlMs : 0, blockHash: hash }),
  };
}

function matchesBlock(result: unknown, hash: string, verify: 'hash' | 'receipts' | undefined): boolean {
  if (verify === 'hash') return (result as { hash?: string }).hash?.toLowerCase() === hash;
  if (verify === 'receipts')
    return Array.isArray(result) && result.every((r) => (r as { blockHash?: string }).blockHash?.toLowerCase() === hash);
  return true;
}

function planLogs(method: string, args: unknown[], head: HeadView, ttl: CacheTtls): CachePlan {
  const filter = args[0] as Record<string, unknown> | undefined;
  if (!filter || typeof filter !== 'object') return { kind: 'none', cls: 'logs' };
  if (typeof filter.blockHash === 'string') {
    return {
      kind: 'cache',
      cls: 'logs',
      key: `c:${method}:${canonicalJson(args)}`,
      params: args,
      blockRef: 'hash',
      accept: () => ({ ttlMs: ttl.finalizedTtlMs }),
    };
  }
  const from = resolveBlockRef(filter.fromBlock, head.state);
  const to = resolveBlockRef(filter.toBlock, head.state);
  const fin = head.state?.finalized ?? -1;
  if (from.kind !== 'number' || to.kind !== 'number' || to.n > fin || from.n > to.n)
    return { kind: 'none', cls: 'logs', blockRef: `${from.label}..${to.label}` };
  const params = [{ ...filter, fromBlock: toQuantity(from.n), toBlock: toQuantity(to.n) }];
  return {
    kind: 'cache',
    cls: 'logs',
    key: `c:${method}:${canonicalJson(params)}`,
    params,
    blockRef: `${from.label}..${to.label}`,
    accept: () => ({ ttlMs: ttl.finalizedTtlMs }),
  };
}
