import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes, plainHex } from '../../core/primitives/hex.ts';
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
