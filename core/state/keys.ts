import { plainHex } from '../primitives/hex.ts';

/**
 * Map keys for addresses, slots and code hashes. The state keeps its caches in `Map<string, …>`; an unprefixed
 * lower-case hex string is the cheapest stable key a Uint8Array can be turned into (Buffer's native hex codec).
 */

/** Unprefixed lower-case hex of `bytes`, used as a map key. */
export function keyOf(bytes: Uint8Array): string {
  return plainHex(bytes);
}

/** Inverse of `keyOf`. */
export function bytesOfKey(key: string): Uint8Array {
  const buf = Buffer.from(key, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Storage values are kept minimal (no leading zero bytes; zero is the empty byte string), as the trie stores them. */
export function trimStorageValue(value: Uint8Array): Uint8Array {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return i === 0 ? value : value.subarray(i);
}
