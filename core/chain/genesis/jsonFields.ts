/**
 * Readers for genesis JSON values with geth's accepted forms and errors naming the key path. Integers may be JSON
 * numbers (safe integers only: larger ones lose precision in JSON.parse, so they must be quoted), "0x" hex (leading
 * zeros allowed, as geth's HexOrDecimal types do) or decimal strings. Byte fields are strict 0x hex.
 */
import { hexToBytes, type HexError } from '../../primitives/hex.ts';
import { GenesisError } from './errors.ts';

export type JsonObject = Record<string, unknown>;

/** The value as a plain JSON object, or a GENESIS_BAD_JSON naming `key`. */
export function asObject(value: unknown, key: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GenesisError('GENESIS_BAD_JSON', `genesis: ${key} must be a JSON object`, { key });
  }
  return value as JsonObject;
}

/** Refuses keys outside `allowed`, naming the first unknown one. */
export function onlyKeys(obj: JsonObject, allowed: ReadonlySet<string>, where: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.has(k))
      throw new GenesisError('GENESIS_UNKNOWN_KEY', `genesis: unknown key ${where ? where + '.' : ''}${k}`, {
        key: where ? `${where}.${k}` : k,
      });
  }
}

function bad(key: string, why: string): GenesisError {
  return new GenesisError('GENESIS_BAD_FIELD', `genesis: ${key}: ${why}`, { key });
}

/** An unsigned integer of at most `maxBits` bits. */
export function parseUint(value: unknown, key: string, maxBits = 256): bigint {
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0)
      throw bad(key, `${value} is not a non-negative integer below 2^53 (quote larger values as hex strings)`);
    n = BigInt(value);
  } else if (typeof value === 'string') {
    if (/^0[xX][0-9a-fA-F]+$/.test(value)) n = BigInt(value);
    else if (/^[0-9]+$/.test(value)) n = BigInt(value);
    else throw bad(key, `"${value}" is not a hex (0x…) or decimal integer`);
  } else {
    throw bad(key, `expected an integer, got ${value === null ? 'null' : typeof value}`);
  }
  if (n >> BigInt(maxBits) !== 0n) throw bad(key, `integer exceeds ${maxBits} bits`);
  return n;
}

/** Like `parseUint` for values that must fit a JS number (block numbers, times, clique settings). */
export function parseSmallUint(value: unknown, key: string): number {
  const n = parseUint(value, key, 64);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(key, 'integer exceeds 2^53');
  return Number(n);
}

/** Strict 0x hex bytes, optionally of an exact length. */
export function parseBytes(value: unknown, key: string, length?: number): Uint8Array {
  if (typeof value !== 'string') throw bad(key, `expected a 0x hex string, got ${value === null ? 'null' : typeof value}`);
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(value, key);
  } catch (err) {
    throw bad(key, (err as HexError).message);
  }
  if (length !== undefined && bytes.length !== length) throw bad(key, `expected ${length} bytes, got ${bytes.length}`);
  return bytes;
}

/** A 0x hex word of at most 32 bytes, left-padded to 32 (lenient storage keys/values of test fixtures). */
export function parseWord(value: unknown, key: string): Uint8Array {
  if (typeof value !== 'string' || !/^0[xX][0-9a-fA-F]{1,64}$/.test(value)) throw bad(key, 'expected a 0x hex word of at most 32 bytes');
  const body = value.slice(2).padStart(64, '0');
  return hexToBytes('0x' + body, key);
}

/** A boolean. */
export function parseBool(value: unknown, key: string): boolean {
  if (typeof value !== 'boolean') throw bad(key, `expected true or false, got ${value === null ? 'null' : typeof value}`);
  return value;
}
