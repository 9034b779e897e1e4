/**
 * Hex, byte and quantity helpers with strict parsing, following the JSON-RPC encoding rules of
 * https://ethereum.org/en/developers/docs/apis/json-rpc/#hex-encoding: DATA is 0x-prefixed with two digits per byte,
 * QUANTITY is 0x-prefixed with no leading zeros ("0x0" for zero).
 */
import { XoneError } from '../errors.ts';

export type HexErrorCode =
  | 'HEX_INVALID'
  | 'HEX_ODD_LENGTH'
  | 'HEX_NO_PREFIX'
  | 'QUANTITY_INVALID'
  | 'QUANTITY_LEADING_ZERO'
  | 'QUANTITY_TOO_LARGE'
  | 'LENGTH_MISMATCH';

export class HexError extends XoneError<HexErrorCode> {}

const HEX_DIGITS = '0123456789abcdef';
const BYTE_TO_HEX: string[] = Array.from({ length: 256 }, (_, i) => HEX_DIGITS[i >> 4] + HEX_DIGITS[i & 15]);
const HEX_RE = /^[0-9a-fA-F]*$/;

/**
 * Buffer's native hex encoder, called on any Uint8Array as `this` (Node's C++ side takes every ArrayBufferView).
 * `Buffer.from(view.buffer, …).toString('hex')` makes a Buffer object per call first: measured, that doubles the cost
 * of a 20- or 32-byte key (state map keys are ~10 % of a 200-call callTracer trace, issue #15). Buffer.prototype's
 * `hexSlice` is undocumented but present in every Node release line; without it the Buffer path is taken.
 */
const nativeHexSlice = (Buffer.prototype as unknown as { hexSlice?: (this: Uint8Array, start: number, end: number) => string }).hexSlice;

/** Lower-case hex of the bytes, without a prefix. */
export const plainHex: (bytes: Uint8Array) => string =
  typeof nativeHexSlice === 'function'
    ? (bytes) => nativeHexSlice.call(bytes, 0, bytes.length)
    : (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** Lower-case 0x-prefixed hex of the bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  // The native encoder beats a JS loop of table lookups past about 8 bytes (addresses, hashes, words).
  if (bytes.length > 8) return '0x' + plainHex(bytes);
  let out = '0x';
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]];
  return out;
}

/** Strict DATA parser: requires the 0x prefix and an even number of hex digits. */
export function hexToBytes(hex: string, what = 'value'): Uint8Array {
  if (typeof hex !== 'string' || !(hex.startsWith('0x') || hex.startsWith('0X'))) {
    throw new HexError('HEX_NO_PREFIX', `${what}: hex string must start with 0x`, { what });
  }
  const body = hex.slice(2);
  if (body.length % 2 !== 0)
    throw new HexError('HEX_ODD_LENGTH', `${what}: hex string has an odd number of digits`, { what, length: body.length });
  if (!HEX_RE.test(body)) throw new HexError('HEX_INVALID', `${what}: invalid hex digit`, { what });
  const buf = Buffer.from(body, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Parses DATA of an exact byte length (addresses, hashes). */
export function hexToFixedBytes(hex: string, length: number, what = 'value'): Uint8Array {
  const bytes = hexToBytes(hex, what);
  if (bytes.length !== length) {
    throw new HexError('LENGTH_MISMATCH', `${what}: expected ${length} bytes, got ${bytes.length}`, {
      what,
      expected: length,
      actual: bytes.length,
    });
  }
  return bytes;
}

/** Lenient hex parse used for test fixtures and config files: optional prefix, odd lengths left-padded. */
export function looseHexToBytes(hex: string, what = 'value'): Uint8Array {
  let body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (!HEX_RE.test(body)) throw new HexError('HEX_INVALID', `${what}: invalid hex digit`, { what });
  if (body.length % 2 === 1) body = '0' + body;
  const buf = Buffer.from(body, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** QUANTITY encoding: 0x-prefixed, no leading zeros. */
export function toQuantity(value: bigint | number): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new HexError('QUANTITY_INVALID', `not a non-negative safe integer: ${value}`);
    return '0x' + value.toString(16);
  }
  if (value < 0n) throw new HexError('QUANTITY_INVALID', `negative quantity: ${value}`);
  return '0x' + value.toString(16);
}

/** Strict QUANTITY parser: 0x prefix, at least one digit, no leading zeros, at most `maxBits` bits. */
export function parseQuantity(hex: string, what = 'quantity', maxBits = 256): bigint {
  if (typeof hex !== 'string' || !hex.startsWith('0x'))
    throw new HexError('HEX_NO_PREFIX', `${what}: hex string must start with 0x`, { what });
  const body = hex.slice(2);
  if (body.length === 0 || !HEX_RE.test(body)) throw new HexError('QUANTITY_INVALID', `${what}: invalid hex quantity`, { what });
  if (body.length > 1 && body[0] === '0')
    throw new HexError('QUANTITY_LEADING_ZERO', `${what}: hex number with leading zero digits`, { what });
  if (body.length > Math.ceil(maxBits / 4))
    throw new HexError('QUANTITY_TOO_LARGE', `${what}: hex number > ${maxBits} bits`, { what, maxBits });
  const value = BigInt(hex);
  if (value >> BigInt(maxBits) !== 0n) throw new HexError('QUANTITY_TOO_LARGE', `${what}: hex number > ${maxBits} bits`, { what, maxBits });
  return value;
}

/** Big-endian unsigned integer of the bytes (empty = 0). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length <= 6) {
    let n = 0;
    for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes[i];
    return BigInt(n);
  }
  return BigInt(bytesToHex(bytes));
}

const EMPTY = new Uint8Array(0);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Value of each lower-case hex digit by char code (what bigint.toString(16) writes). */
const HEX_VALUE = new Uint8Array(128);
for (let i = 0; i < 16; i++) HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;

/** Minimal big-endian bytes of a positive safe integer. */
function safeIntToBytes(n: number): Uint8Array {
  let len = 0;
  for (let x = n; x >= 1; x = Math.floor(x / 256)) len++;
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
  return out;
}

/**
 * Minimal big-endian bytes of a non-negative integer (0 → empty), as RLP wants scalars. Each call returns a new array
 * with its own buffer (no view of Buffer's shared pool): values below 2^53 by arithmetic, larger ones from their hex
 * digits, one string and one array each (the follower encodes several per transaction: #18).
 */
export function bigIntToBytes(value: bigint | number): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new HexError('QUANTITY_INVALID', `not a non-negative safe integer: ${value}`);
    return value === 0 ? EMPTY : safeIntToBytes(value);
  }
  if (value < 0n) throw new HexError('QUANTITY_INVALID', `negative integer: ${value}`);
  if (value === 0n) return EMPTY;
  if (value <= MAX_SAFE) return safeIntToBytes(Number(value));
  const hex = value.toString(16);
  const odd = hex.length & 1;
  const out = new Uint8Array((hex.length + odd) >> 1);
  if (odd) out[0] = HEX_VALUE[hex.charCodeAt(0)] as number;
  for (let i = odd, j = odd; i < hex.length; i += 2, j++)
    out[j] = ((HEX_VALUE[hex.charCodeAt(i)] as number) << 4) | (HEX_VALUE[hex.charCodeAt(i + 1)] as number);
  return out;
}

/** Left-pads to `length` bytes (for 32-byte words). Throws if the value does not fit. */
export function padLeft(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length === length) return bytes;
  if (bytes.length > length) throw new HexError('LENGTH_MISMATCH', `value of ${bytes.length} bytes does not fit in ${length}`);
  const out = new Uint8Array(length);
  out.set(bytes, length - bytes.length);
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
