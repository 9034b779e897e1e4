/**
 * The number, hash and parent of a served block, read from its header alone (the transactions are not decoded:
 * the import pipeline does that once). The follower uses it to check a range before import: consecutive numbers,
 * internal parent links, and whether the range extends our head or needs a reorg.
 */
import { keccak256 } from '../primitives/keccak.ts';
import { decodeRlp, expectBytes, expectList, expectUint, splitRlpStream } from '../primitives/rlp.ts';
import { SyncError } from './errors.ts';

/** Identity of one block. */
export interface BlockRef {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
}

/** The payload (concatenated items) of an RLP list, or undefined when `rlp` is not exactly one list. */
function listPayload(rlp: Uint8Array): Uint8Array | undefined {
  const b = rlp[0];
  if (b === undefined || b < 0xc0) return undefined;
  if (b <= 0xf7) return rlp.length === 1 + (b - 0xc0) ? rlp.subarray(1) : undefined;
  const lenLen = b - 0xf7;
  let len = 0;
  for (let i = 1; i <= lenLen; i++) len = len * 256 + (rlp[i] ?? 0);
  return rlp.length === 1 + lenLen + len ? rlp.subarray(1 + lenLen) : undefined;
}

/** Reads a block's identity; SYNC_PEER_BAD_RESPONSE when the bytes are not a block. */
export function blockRef(rlp: Uint8Array, peer: string): BlockRef {
  try {
    const payload = listPayload(rlp);
    if (!payload) throw new Error('not an RLP list');
    const header = splitRlpStream(payload)[0];
    if (!header) throw new Error('empty block');
    const fields = expectList(decodeRlp(header), 'header');
    return {
      number: expectUint(fields[8] ?? new Uint8Array(0), 'header.number', 8),
      hash: keccak256(header),
      parentHash: expectBytes(fields[0] ?? [], 'header.parentHash', 32),
    };
  } catch (err) {
    throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${peer}: a served block is malformed: ${(err as Error).message}`, { peer });
  }
}
