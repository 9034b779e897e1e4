/**
 * The difficulty of an encoded header, read without decoding its other fields: total difficulty sums it over long
 * ranges of stored headers (the RPC's `totalDifficulty`, the chain's fork choice on a datadir older than its TD column).
 */
import { bytesToBigInt } from '../../primitives/hex.ts';

/** Position of `difficulty` in a header's RLP list. */
const DIFFICULTY_FIELD = 7;

/** The difficulty field of an encoded header, read without decoding the other fields. */
export function headerDifficulty(rlp: Uint8Array): bigint {
  let [pos] = listPayload(rlp, 0);
  for (let i = 0; i < DIFFICULTY_FIELD; i++) pos = itemEnd(rlp, pos);
  const [start, end] = stringPayload(rlp, pos);
  return bytesToBigInt(rlp.subarray(start, end));
}

/** Length of a long-form RLP length prefix's length. */
function readLength(buf: Uint8Array, at: number, lenOfLen: number): number {
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + (buf[at + i] as number);
  return len;
}

function listPayload(buf: Uint8Array, at: number): [number, number] {
  const b = buf[at] as number;
  if (b < 0xc0) throw new RangeError('header RLP is not a list');
  if (b <= 0xf7) return [at + 1, at + 1 + (b - 0xc0)];
  const lenOfLen = b - 0xf7;
  const start = at + 1 + lenOfLen;
  return [start, start + readLength(buf, at + 1, lenOfLen)];
}

function stringPayload(buf: Uint8Array, at: number): [number, number] {
  const b = buf[at] as number;
  if (b < 0x80) return [at, at + 1];
  if (b <= 0xb7) return [at + 1, at + 1 + (b - 0x80)];
  if (b < 0xc0) {
    const lenOfLen = b - 0xb7;
    const start = at + 1 + lenOfLen;
    return [start, start + readLength(buf, at + 1, lenOfLen)];
  }
  throw new RangeError('expected an RLP string');
}

function itemEnd(buf: Uint8Array, at: number): number {
  return (buf[at] as number) >= 0xc0 ? listPayload(buf, at)[1] : stringPayload(buf, at)[1];
}
