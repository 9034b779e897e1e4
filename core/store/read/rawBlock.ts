/** A block's consensus RLP rebuilt from the store's header and body records (for peers and debug_getRawBlock). */
import { encodeRlpListOfEncoded, splitRlpStream } from '../../primitives/rlp.ts';
import type { ChainReader } from './chainReader.ts';

/** RLP([header, transactions, ommers, withdrawals?]) of the stored block, or undefined when unknown. */
export function rawBlock(store: ChainReader, hash: Uint8Array): Uint8Array | undefined {
  const header = store.getHeaderByHash(hash);
  const body = store.getBody(hash);
  if (!header || !body) return undefined;
  return blockRlp(header.headerRlp, body);
}

/** RLP([header, transactions, ommers, withdrawals?]) from a header record and a body record (as `putBlock` takes them). */
export function blockRlp(headerRlp: Uint8Array, bodyRlp: Uint8Array): Uint8Array {
  // The body is RLP([transactions, ommers, withdrawals?]): reuse its encoded items as they are.
  return encodeRlpListOfEncoded([headerRlp, ...splitRlpStream(bodyPayload(bodyRlp))]);
}

/** The payload of an RLP list (its items, concatenated), skipping the list header. */
function bodyPayload(list: Uint8Array): Uint8Array {
  const b = list[0];
  if (b >= 0xc0 && b <= 0xf7) return list.subarray(1);
  return list.subarray(1 + (b - 0xf7));
}
