import type { HeadState } from './head.ts';

/** A block reference as a call names it, resolved against the served head. */
export type ResolvedRef =
  { kind: 'number'; n: number; label: string } | { kind: 'hash'; hash: string; label: string } | { kind: 'uncacheable'; label: string };

const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * Resolves a block parameter (tag, quantity, or EIP-1898 object) to a concrete number or hash. `pending`, unknown
 * shapes, and anything when the head is not known yet are uncacheable (forwarded untouched).
 */
export function resolveBlockRef(ref: unknown, head: HeadState | undefined): ResolvedRef {
  if (ref === undefined || ref === null) ref = 'latest';
  if (typeof ref === 'object' && !Array.isArray(ref)) {
    const o = ref as Record<string, unknown>;
    if (typeof o.blockHash === 'string' && HASH.test(o.blockHash))
      return { kind: 'hash', hash: o.blockHash.toLowerCase(), label: o.blockHash.toLowerCase() };
    if (o.blockNumber !== undefined) ref = o.blockNumber;
    else return { kind: 'uncacheable', label: 'object' };
  }
  if (typeof ref !== 'string') return { kind: 'uncacheable', label: 'invalid' };
  if (HASH.test(ref)) return { kind: 'hash', hash: ref.toLowerCase(), label: ref.toLowerCase() };
  if (QUANTITY.test(ref)) return { kind: 'number', n: parseInt(ref, 16), label: ref.toLowerCase() };
  if (!head) return { kind: 'uncacheable', label: ref };
  switch (ref) {
    case 'latest':
      return { kind: 'number', n: head.latest, label: 'latest' };
    case 'safe':
      return { kind: 'number', n: head.safe, label: 'safe' };
    case 'finalized':
      return { kind: 'number', n: head.finalized, label: 'finalized' };
    case 'earliest':
      return { kind: 'number', n: 0, label: 'earliest' };
    default:
      return { kind: 'uncacheable', label: ref };
  }
}

/** A number as a JSON-RPC quantity. */
export const toQuantity = (n: number): string => `0x${n.toString(16)}`;
