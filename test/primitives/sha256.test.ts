import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../core/primitives/sha256.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('sha256', () => {
  it('gives the FIPS 180-2 digests of "" and "abc" as a plain Uint8Array', () => {
    const empty = sha256(new Uint8Array(0));
    expect(Object.getPrototypeOf(empty)).toBe(Uint8Array.prototype);
    expect(hex(empty)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('agrees with a streamed hash for every length around the block size, for views and for 50 KB', () => {
    const data = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 31) & 255);
    for (let len = 0; len <= 130; len++) {
      const view = data.subarray(7, 7 + len);
      expect(hex(sha256(view))).toBe(createHash('sha256').update(view).digest('hex'));
    }
    expect(hex(sha256(data))).toBe(createHash('sha256').update(data).digest('hex'));
  });
});
