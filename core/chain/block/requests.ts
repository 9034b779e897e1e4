/**
 * Execution-layer requests (EIP-7685, Prague): deposits (EIP-6110, type 0), withdrawals (EIP-7002, type 1) and
 * consolidations (EIP-7251, type 2). The header commits to them as sha256 over the sha256 of each non-empty
 * `type || data`, in type order; a block with none commits to sha256 of nothing.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../../primitives/hex.ts';

/** One request list of a block: its type byte and the concatenated request data of that type. */
export interface BlockRequests {
  type: number;
  data: Uint8Array;
}

/** sha256(""): the requestsHash of a block without requests. */
export const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));

/** The header's requestsHash for `requests` (in type order; empty lists are left out). */
export function requestsHash(requests: readonly BlockRequests[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const r of requests) if (r.data.length > 0) parts.push(sha256(concatBytes(Uint8Array.of(r.type), r.data)));
  return sha256(concatBytes(...parts));
}
