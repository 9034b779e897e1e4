/**
 * Recursive Length Prefix encoding (https://ethereum.org/en/developers/docs/data-structures-and-encoding/rlp/).
 *
 * Decoding is strict: every non-canonical form geth rejects is an `RlpError` naming the offset — a single byte below
 * 0x80 wrapped in a string header, long-form headers for short payloads, length fields with leading zeros, truncated
 * items and trailing bytes. Decoded strings are zero-copy views into the input.
 */
import { XoneError } from '../errors.ts';

export type RlpErrorCode =
  | 'RLP_EMPTY_INPUT'
  | 'RLP_TRUNCATED'
  | 'RLP_TRAILING_BYTES'
  | 'RLP_NON_CANONICAL_SIZE'
  | 'RLP_LEADING_ZERO_LENGTH'
  | 'RLP_TOO_DEEP'
  | 'RLP_EXPECTED_LIST'
  | 'RLP_EXPECTED_BYTES'
  | 'RLP_BAD_SHAPE'
  | 'RLP_NON_CANONICAL_INTEGER';

export class RlpError extends XoneError<RlpErrorCode> {}

/** A decoded RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];
/** What `encodeRlp` accepts: byte strings and nested lists of them. */
export type RlpInput = Uint8Array | readonly RlpInput[];

/** Nesting deeper than this is refused, so hostile input cannot exhaust the stack. */
const MAX_RLP_DEPTH = 1024;

// ---------------------------------------------------------------------------------------------------------------
// Encoding: measure first, then write once into one buffer.

/** Bytes of the big-endian length in a long-form header (payloads below 4 GiB, the most a Uint8Array holds here). */
export function rlpLengthOfLength(n: number): number {
  return n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
}

function headerLength(payload: number): number {
  return payload < 56 ? 1 : 1 + rlpLengthOfLength(payload);
}

/** Encoded size of a byte string of `len` bytes whose first byte is `first` (a single byte below 0x80 is itself). */
export function rlpStringLength(len: number, first: number): number {
  if (len === 1 && first < 0x80) return 1;
  return headerLength(len) + len;
}

function payloadLength(input: RlpInput, sizes: number[]): number {
  if (input instanceof Uint8Array) return rlpStringLength(input.length, input[0]);
  const slot = sizes.length;
  sizes.push(0);
  let total = 0;
  for (const child of input) total += payloadLength(child, sizes);
  sizes[slot] = total;
  return headerLength(total) + total;
}

/**
 * Writes the header of a string (bases 0x80/0xb7) or list (0xc0/0xf7) whose payload is `payload` bytes at `pos`;
 * returns the position after it. The one length writer: the trie's encoders use it too.
 */
export function writeRlpHeader(out: Uint8Array, pos: number, payload: number, shortBase: number, longBase: number): number {
  if (payload < 56) {
    out[pos] = shortBase + payload;
    return pos + 1;
  }
  const lol = rlpLengthOfLength(payload);
  out[pos] = longBase + lol;
  for (let i = lol; i > 0; i--, payload >>>= 8) out[pos + i] = payload & 0xff;
  return pos + 1 + lol;
}

/** Writes the byte string `b` (its header, then its bytes) at `pos`; returns the position after it. */
export function writeRlpString(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && b[0] < 0x80) {
    out[pos] = b[0];
    return pos + 1;
  }
  pos = writeRlpHeader(out, pos, b.length, 0x80, 0xb7);
  out.set(b, pos);
  return pos + b.length;
}

function write(input: RlpInput, out: Uint8Array, pos: number, sizes: number[], cursor: { i: number }): number {
  if (input instanceof Uint8Array) return writeRlpString(out, pos, input);
  const payload = sizes[cursor.i++];
  pos = writeRlpHeader(out, pos, payload, 0xc0, 0xf7);
  for (const child of input) pos = write(child, out, pos, sizes, cursor);
  return pos;
}

/** RLP-encodes a byte string or a nested list of byte strings. */
export function encodeRlp(input: RlpInput): Uint8Array {
  const sizes: number[] = [];
  const total = payloadLength(input, sizes);
  const out = new Uint8Array(total);
  write(input, out, 0, sizes, { i: 0 });
  return out;
}

/** Wraps already-encoded items into a list without re-encoding them (used for bodies of pre-encoded txs). */
export function encodeRlpListOfEncoded(encodedItems: readonly Uint8Array[]): Uint8Array {
  let payload = 0;
  for (const item of encodedItems) payload += item.length;
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeRlpHeader(out, 0, payload, 0xc0, 0xf7);
  for (const item of encodedItems) {
    out.set(item, pos);
    pos += item.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding.

// The header just read, in module state rather than an object per item: a block decodes tens of thousands of items,
// and one object per header plus one per decoded item were a tenth of the follower's chain-thread allocation (#18).
// Every reader copies these before it reads the next header.
let hList = false;
/** Offset of the payload. */
let hStart = 0;
/** Offset just past the payload. */
let hEnd = 0;
/** Offset just past the item `decodeAt` returned last. */
let decodedEnd = 0;

function setHeader(isList: boolean, start: number, end: number): void {
  hList = isList;
  hStart = start;
  hEnd = end;
}

function readHeader(data: Uint8Array, pos: number, limit: number): void {
  if (pos >= limit) throw new RlpError('RLP_TRUNCATED', `rlp: value truncated at offset ${pos}`, { offset: pos });
  const b = data[pos];
  if (b < 0x80) return setHeader(false, pos, pos + 1);
  if (b < 0xb8) {
    const len = b - 0x80;
    const end = pos + 1 + len;
    if (end > limit)
      throw new RlpError('RLP_TRUNCATED', `rlp: string of ${len} bytes at offset ${pos} exceeds input`, { offset: pos, length: len });
    if (len === 1 && data[pos + 1] < 0x80) {
      throw new RlpError(
        'RLP_NON_CANONICAL_SIZE',
        `rlp: non-canonical size information: single byte below 0x80 at offset ${pos} must be encoded as itself`,
        { offset: pos },
      );
    }
    return setHeader(false, pos + 1, end);
  }
  if (b < 0xc0) return readLongHeader(data, pos, limit, b - 0xb7, false);
  if (b < 0xf8) {
    const len = b - 0xc0;
    const end = pos + 1 + len;
    if (end > limit)
      throw new RlpError('RLP_TRUNCATED', `rlp: list of ${len} bytes at offset ${pos} exceeds input`, { offset: pos, length: len });
    return setHeader(true, pos + 1, end);
  }
  return readLongHeader(data, pos, limit, b - 0xf7, true);
}

function readLongHeader(data: Uint8Array, pos: number, limit: number, lol: number, isList: boolean): void {
  if (pos + 1 + lol > limit) throw new RlpError('RLP_TRUNCATED', `rlp: length field at offset ${pos} truncated`, { offset: pos });
  if (data[pos + 1] === 0) {
    throw new RlpError('RLP_LEADING_ZERO_LENGTH', `rlp: non-canonical size information: length field at offset ${pos} has leading zero`, {
      offset: pos,
    });
  }
  let len = 0;
  for (let i = 0; i < lol; i++) len = len * 256 + data[pos + 1 + i];
  if (len < 56) {
    throw new RlpError(
      'RLP_NON_CANONICAL_SIZE',
      `rlp: non-canonical size information: ${len} bytes at offset ${pos} must use the short form`,
      { offset: pos, length: len },
    );
  }
  const start = pos + 1 + lol;
  const end = start + len;
  if (end > limit)
    throw new RlpError('RLP_TRUNCATED', `rlp: ${isList ? 'list' : 'string'} of ${len} bytes at offset ${pos} exceeds input`, {
      offset: pos,
      length: len,
    });
  setHeader(isList, start, end);
}

/** Decodes the item at `pos` (within `limit`); sets `decodedEnd` to the offset just past it. */
function decodeAt(data: Uint8Array, pos: number, limit: number, depth: number): RlpItem {
  readHeader(data, pos, limit);
  const end = hEnd;
  if (!hList) {
    decodedEnd = end;
    return data.subarray(hStart, end);
  }
  if (depth >= MAX_RLP_DEPTH)
    throw new RlpError('RLP_TOO_DEEP', `rlp: nesting deeper than ${MAX_RLP_DEPTH} at offset ${pos}`, { offset: pos });
  const items: RlpItem[] = [];
  let p = hStart;
  while (p < end) {
    items.push(decodeAt(data, p, end, depth + 1));
    p = decodedEnd;
  }
  decodedEnd = end;
  return items;
}

/** Decodes exactly one RLP item that spans the whole input. */
export function decodeRlp(data: Uint8Array): RlpItem {
  if (data.length === 0) throw new RlpError('RLP_EMPTY_INPUT', 'rlp: empty input');
  const item = decodeAt(data, 0, data.length, 0);
  const end = decodedEnd;
  if (end !== data.length) {
    throw new RlpError('RLP_TRAILING_BYTES', `rlp: input contains ${data.length - end} trailing bytes after the value`, {
      offset: end,
      trailing: data.length - end,
    });
  }
  return item;
}

/**
 * The offsets of a list's items in `data` (an encoded RLP list, checked as far as its own header and the items'
 * headers): `starts[i]` is where item i's encoding begins, `end` where the list's payload ends. Codecs cut encoded
 * runs of items out of canonical input with it instead of re-encoding decoded fields.
 */
export function rlpListItemStarts(data: Uint8Array, pos = 0): { payloadStart: number; end: number; starts: number[] } {
  readHeader(data, pos, data.length);
  if (!hList) throw new RlpError('RLP_EXPECTED_LIST', `rlp: expected a list at offset ${pos}, got a byte string`, { what: 'list' });
  const payloadStart = hStart;
  const end = hEnd;
  const starts: number[] = [];
  for (let p = payloadStart; p < end; p = hEnd) {
    starts.push(p);
    readHeader(data, p, end);
  }
  return { payloadStart, end, starts };
}

/**
 * Splits a concatenation of RLP items (as in an exported chain file) into the raw bytes of each item, checking only
 * their outer headers. Each item is decoded strictly later by its own codec.
 */
export function splitRlpStream(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < data.length) {
    readHeader(data, pos, data.length);
    out.push(data.subarray(pos, hEnd));
    pos = hEnd;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Shape helpers for codecs: each names the field it was reading so errors say what was wrong.

export function expectList(item: RlpItem, what: string, length?: number): RlpItem[] {
  if (!Array.isArray(item)) throw new RlpError('RLP_EXPECTED_LIST', `rlp: ${what}: expected a list, got a byte string`, { what });
  if (length !== undefined && item.length !== length) {
    throw new RlpError('RLP_BAD_SHAPE', `rlp: ${what}: expected ${length} fields, got ${item.length}`, {
      what,
      expected: length,
      actual: item.length,
    });
  }
  return item;
}

export function expectBytes(item: RlpItem, what: string, length?: number): Uint8Array {
  if (Array.isArray(item)) throw new RlpError('RLP_EXPECTED_BYTES', `rlp: ${what}: expected a byte string, got a list`, { what });
  if (length !== undefined && item.length !== length) {
    throw new RlpError('RLP_BAD_SHAPE', `rlp: ${what}: expected ${length} bytes, got ${item.length}`, {
      what,
      expected: length,
      actual: item.length,
    });
  }
  return item as Uint8Array;
}

/** A canonical unsigned integer: no leading zero bytes, at most `maxBytes` long. */
export function expectUint(item: RlpItem, what: string, maxBytes = 32): bigint {
  const bytes = expectUintBytes(item, what, maxBytes);
  if (bytes.length === 0) return 0n;
  if (bytes.length <= 6) {
    let n = 0;
    for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes[i];
    return BigInt(n);
  }
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));
}

/** Like `expectUint` for values that fit a JS number (nonces, gas, block numbers, timestamps up to 2^53). */
export function expectSmallUint(item: RlpItem, what: string): number {
  const bytes = expectUintBytes(item, what, 8);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes[i];
  if (n > Number.MAX_SAFE_INTEGER) throw new RlpError('RLP_BAD_SHAPE', `rlp: ${what}: integer exceeds 2^53`, { what });
  return n;
}

function expectUintBytes(item: RlpItem, what: string, maxBytes: number): Uint8Array {
  const bytes = expectBytes(item, what);
  if (bytes.length > 0 && bytes[0] === 0) {
    throw new RlpError('RLP_NON_CANONICAL_INTEGER', `rlp: ${what}: non-canonical integer (leading zero bytes)`, { what });
  }
  if (bytes.length > maxBytes) {
    throw new RlpError('RLP_BAD_SHAPE', `rlp: ${what}: integer of ${bytes.length} bytes exceeds ${maxBytes} bytes`, { what, maxBytes });
  }
  return bytes;
}
