import { describe, expect, it } from 'vitest';
import { crc32c, crc32cBackend, crc32cNative } from '../../core/store/segment/crc32c.ts';
import { crc32cJs } from '../../core/store/segment/crc32cJs.ts';

describe('crc32c', () => {
  it('default: standard check value of "123456789" is 0xE3069283', () => {
    const data = new TextEncoder().encode('123456789');
    expect(crc32c(data)).toBe(0xe3069283);
    expect(crc32cJs(data)).toBe(0xe3069283);
  });

  it('behavior: the native addon loads here and agrees with the pure-JS slicing-by-8 on every length 0..300', () => {
    expect(crc32cBackend).toBe('native');
    const buf = new Uint8Array(300);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 131 + 7) & 0xff;
    for (let n = 0; n <= 300; n++)
      expect(crc32cJs(buf.subarray(0, n))).toBe((crc32cNative as (d: Uint8Array) => number)(buf.subarray(0, n)) >>> 0);
  });

  it('behavior: continuing from a previous CRC equals one pass over the concatenation', () => {
    const a = new TextEncoder().encode('hello ');
    const b = new TextEncoder().encode('world, this is longer than eight bytes');
    const ab = new Uint8Array([...a, ...b]);
    expect(crc32cJs(b, crc32cJs(a))).toBe(crc32cJs(ab));
  });
});
