import { describe, expect, it } from 'vitest';
import { bigIntToBytes, bytesToHex, HexError, hexToBytes, plainHex } from '../../core/primitives/hex.ts';
import { bytesOfKey, keyOf } from '../../core/state/keys.ts';

/** What the native encoder must agree with: Buffer's own hex of a copy. */
const reference = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('hex encoding', () => {
  it('encodes every length 0..70 the way Buffer does, with and without the prefix', () => {
    for (let len = 0; len <= 70; len++) {
      const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 37 + len) & 255);
      expect(plainHex(bytes)).toBe(reference(bytes));
      expect(bytesToHex(bytes)).toBe('0x' + reference(bytes));
    }
  });

  it('encodes only the view of a larger buffer (subarrays of words and of Buffer pool slices)', () => {
    const word = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const address = word.subarray(12);
    expect(plainHex(address)).toBe(reference(address));
    expect(keyOf(address)).toHaveLength(40);
    const pooled = Buffer.from('00ff10ab', 'hex'); // a slice of Node's shared allocation pool
    expect(plainHex(pooled.subarray(1, 3))).toBe('ff10');
    expect(bytesToHex(new Uint8Array(0))).toBe('0x');
  });

  it('keeps keyOf and bytesOfKey inverse', () => {
    const bytes = hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(bytesOfKey(keyOf(bytes))).toEqual(bytes);
  });
});

/** The reference: minimal big-endian bytes from the value's hex digits. */
function expected(v: bigint): string {
  if (v === 0n) return '0x';
  const hex = v.toString(16);
  return '0x' + (hex.length % 2 ? '0' + hex : hex);
}

describe('bigIntToBytes', () => {
  it('behavior: minimal big-endian bytes at every byte length and around 2^53, as bigint and as number', () => {
    const values: bigint[] = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n];
    for (let bits = 8n; bits <= 256n; bits += 8n) values.push((1n << bits) - 1n, 1n << (bits - 1n), (1n << bits) / 3n);
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    values.push(safe - 1n, safe, safe + 1n, 1n << 53n, 10n ** 18n, 2n ** 256n - 1n);
    for (const v of values) {
      expect(bytesToHex(bigIntToBytes(v)), `0x${v.toString(16)}`).toBe(expected(v));
      if (v <= safe) expect(bytesToHex(bigIntToBytes(Number(v))), `number 0x${v.toString(16)}`).toBe(expected(v));
    }
  });

  it('behavior: each result owns its buffer (no view of a shared pool that a later write could reach)', () => {
    const a = bigIntToBytes(10n ** 30n);
    const b = bigIntToBytes(123_456_789);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(a.length);
    expect(b.buffer.byteLength).toBe(b.length);
  });

  it('error: negative and unsafe inputs are refused', () => {
    expect(() => bigIntToBytes(-1n)).toThrow(HexError);
    expect(() => bigIntToBytes(-1)).toThrow(HexError);
    expect(() => bigIntToBytes(2 ** 53)).toThrow(HexError);
    expect(() => bigIntToBytes(1.5)).toThrow(HexError);
  });
});
