/** EIP-55 checksums and the strict address parser. */
import { describe, expect, it } from 'vitest';
import { getAddress } from 'ethers';
import { randomBytes } from 'node:crypto';
import { AddressError, isAddress, parseAddress, toChecksumAddress } from '../../core/primitives/address.ts';
import { bytesToHex } from '../../core/primitives/hex.ts';

/** The test vectors published in EIP-55. */
const EIP55 = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof AddressError ? e.code : 'untyped';
  }
  return undefined;
}

describe('address', () => {
  it('default: EIP-55 vectors checksum to themselves and parse', () => {
    for (const a of EIP55) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
      expect(toChecksumAddress(parseAddress(a))).toBe(a);
      expect(isAddress(a)).toBe(true);
    }
  });

  it('behavior: matches ethers on random addresses', () => {
    for (let i = 0; i < 200; i++) {
      const hex = bytesToHex(randomBytes(20));
      expect(toChecksumAddress(hex)).toBe(getAddress(hex));
    }
  });

  it('behavior: all-lower and all-upper hex carry no checksum and are accepted', () => {
    const a = EIP55[4];
    expect(bytesToHex(parseAddress(a.toLowerCase()))).toBe(a.toLowerCase());
    expect(bytesToHex(parseAddress('0x' + a.slice(2).toUpperCase()))).toBe(a.toLowerCase());
  });

  it('error: a mixed-case address with a wrong checksum names the address and the right form', () => {
    const bad = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    expect(codeOf(() => parseAddress(bad))).toBe('ADDRESS_BAD_CHECKSUM');
    expect(() => parseAddress(bad)).toThrow(/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD.*0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed/);
    expect(isAddress(bad)).toBe(false);
    expect(bytesToHex(parseAddress(bad, { checksum: false }))).toBe(bad.toLowerCase());
  });

  it('error: prefix, length and digits are checked', () => {
    expect(codeOf(() => parseAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'))).toBe('ADDRESS_NO_PREFIX');
    expect(codeOf(() => parseAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae'))).toBe('ADDRESS_BAD_LENGTH');
    expect(codeOf(() => parseAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00'))).toBe('ADDRESS_BAD_LENGTH');
    expect(codeOf(() => parseAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beagg'))).toBe('ADDRESS_INVALID_HEX');
    expect(codeOf(() => toChecksumAddress(new Uint8Array(19)))).toBe('ADDRESS_BAD_LENGTH');
    expect(codeOf(() => parseAddress(42 as unknown as string))).toBe('ADDRESS_NO_PREFIX');
  });
});
