/** Both secp256k1 backends against the same known vectors, against each other on random keys, and on bad input. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeAddress, SigningKey } from 'ethers';
import {
  addressFromPrivateKey,
  addressFromPublicKey,
  chooseSecp256k1,
  createEllipticSecp256k1,
  createNativeSecp256k1,
  createNobleSecp256k1,
  defaultSecp256k1,
  nativeSecp256k1Available,
  recoverAddress,
  SECP256K1_N,
  Secp256k1Error,
  type Secp256k1Backend,
} from '../../core/primitives/secp256k1/index.ts';
import { toChecksumAddress } from '../../core/primitives/address.ts';
import { bytesToHex, hexToBytes } from '../../core/primitives/hex.ts';

const pk = (n: bigint): Uint8Array => hexToBytes('0x' + n.toString(16).padStart(64, '0'));

/** Private keys and their addresses (well-known: keys 1, 2, 3 and the EIP-155 example key 0x46...46). */
const KEY_VECTORS: Array<{ key: Uint8Array; address: string }> = [
  { key: pk(1n), address: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf' },
  { key: pk(2n), address: '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF' },
  { key: pk(3n), address: '0x6813Eb9362372EEF6200f3b1dbC3f819671cBA69' },
  { key: new Uint8Array(32).fill(0x46), address: '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F' },
];

/** EIP-155's worked example: signing hash, key, signature (v = 37 → recovery 0 on chain 1). */
const EIP155 = {
  hash: hexToBytes('0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53'),
  key: new Uint8Array(32).fill(0x46),
  r: 18515461264373351373200002665853028612451056578545711640558177340181847433846n,
  s: 46948507304638947509940763649030358759909902576025900602547168820602576006531n,
  recovery: 0,
  address: '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F',
};

// The elliptic build is what the package degrades to without its binding: it must be correct too.
const backends: Secp256k1Backend[] = [createNobleSecp256k1(), createEllipticSecp256k1()];
if (nativeSecp256k1Available()) backends.push(createNativeSecp256k1());

describe('secp256k1 backends', () => {
  it('default: native loads on this machine and is the default', () => {
    // The package ships a linux-x64 prebuild; if this fails the node silently runs 25x slower.
    expect(nativeSecp256k1Available()).toBe(true);
    expect(defaultSecp256k1().name).toBe(process.env.XONE_SECP256K1 === 'noble' ? 'noble' : 'native');
    expect(createNativeSecp256k1().detail).toMatch(/libsecp256k1 binding .*\.node/);
  });

  it('behavior: XONE_SECP256K1=noble forces noble; an unknown value is a typed error', () => {
    expect(chooseSecp256k1('noble').name).toBe('noble');
    expect(chooseSecp256k1(undefined).name).toBe('native');
    expect(() => chooseSecp256k1('openssl')).toThrow(Secp256k1Error);
  });

  for (const b of backends) {
    describe(b.name, () => {
      it('default: address of known private keys', () => {
        for (const v of KEY_VECTORS) {
          expect(toChecksumAddress(addressFromPrivateKey(v.key, b))).toBe(v.address);
          expect(toChecksumAddress(addressFromPublicKey(b.publicKeyFromPrivate(v.key)))).toBe(v.address);
        }
      });

      it('default: signs the EIP-155 example to its published signature and recovers its address', () => {
        expect(b.sign(EIP155.hash, EIP155.key)).toEqual({ r: EIP155.r, s: EIP155.s, recovery: EIP155.recovery });
        expect(toChecksumAddress(recoverAddress(EIP155.hash, EIP155.r, EIP155.s, EIP155.recovery, b))).toBe(EIP155.address);
      });

      it('behavior: recovers a high-s signature (pre-Homestead form) to the same key', () => {
        const other = toChecksumAddress(recoverAddress(EIP155.hash, EIP155.r, SECP256K1_N - EIP155.s, 1 - EIP155.recovery, b));
        expect(other).toBe(EIP155.address);
      });

      it('error: out-of-range r, s and recovery ids are typed errors', () => {
        const h = EIP155.hash;
        const code = (f: () => unknown): string | undefined => {
          try {
            f();
          } catch (e) {
            return e instanceof Secp256k1Error ? e.code : 'untyped';
          }
          return undefined;
        };
        expect(code(() => b.recoverPublicKey(h, 0n, 1n, 0))).toBe('SECP256K1_INVALID_R');
        expect(code(() => b.recoverPublicKey(h, SECP256K1_N, 1n, 0))).toBe('SECP256K1_INVALID_R');
        expect(code(() => b.recoverPublicKey(h, 1n, 0n, 0))).toBe('SECP256K1_INVALID_S');
        expect(code(() => b.recoverPublicKey(h, 1n, SECP256K1_N, 0))).toBe('SECP256K1_INVALID_S');
        expect(code(() => b.recoverPublicKey(h, 1n, 1n, 2))).toBe('SECP256K1_INVALID_RECOVERY');
        expect(code(() => b.recoverPublicKey(h.subarray(1), 1n, 1n, 0))).toBe('SECP256K1_INVALID_HASH');
        expect(code(() => b.publicKeyFromPrivate(new Uint8Array(32)))).toBe('SECP256K1_INVALID_PRIVATE_KEY');
        expect(code(() => b.publicKeyFromPrivate(pk(SECP256K1_N)))).toBe('SECP256K1_INVALID_PRIVATE_KEY');
        expect(code(() => b.sign(h, new Uint8Array(31)))).toBe('SECP256K1_INVALID_PRIVATE_KEY');
      });

      it('error: r with no curve point (x = n - 1) fails recovery with a typed error', () => {
        const r = SECP256K1_N - 1n; // ethereum/tests TransactionWithRvalueHigh
        expect(() => b.recoverPublicKey(EIP155.hash, r, 1n, 0)).toThrow(Secp256k1Error);
        expect(() => b.recoverPublicKey(EIP155.hash, r, 1n, 1)).toThrow(Secp256k1Error);
      });
    });
  }

  it('behavior: both backends and ethers agree on 64 random keys and hashes', () => {
    const [noble, native] = [createNobleSecp256k1(), createNativeSecp256k1()];
    for (let i = 0; i < 64; i++) {
      const key = randomBytes(32);
      const hash = randomBytes(32);
      const a = noble.sign(hash, key);
      const b = native.sign(hash, key);
      expect(b).toEqual(a); // RFC 6979 + low-s: identical signatures
      const ref = new SigningKey(bytesToHex(key)).sign(hash);
      expect(BigInt(ref.r)).toBe(a.r);
      expect(BigInt(ref.s)).toBe(a.s);
      expect(ref.yParity).toBe(a.recovery);
      const expected = computeAddress(bytesToHex(key)).toLowerCase();
      expect(bytesToHex(recoverAddress(hash, a.r, a.s, a.recovery, noble))).toBe(expected);
      expect(bytesToHex(recoverAddress(hash, a.r, a.s, a.recovery, native))).toBe(expected);
      expect(bytesToHex(native.publicKeyFromPrivate(key))).toBe(bytesToHex(noble.publicKeyFromPrivate(key)));
    }
  });
});
