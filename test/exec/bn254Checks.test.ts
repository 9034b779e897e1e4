/**
 * The BN254 precompiles' backend with geth's point checks (core/exec/evm/bn254Checks.ts): the same results as the
 * library's NobleBN254 on valid points, and geth's crypto/bn256/gnark texts, as EVMErrors, on invalid ones.
 */
import { EVMError, NobleBN254 } from '@ethereumjs/evm';
import { bn254 } from '@noble/curves/bn254.js';
import { describe, expect, it } from 'vitest';
import { bn254PairingSize, GethBN254 } from '../../core/exec/evm/bn254Checks.ts';

const w = (n: bigint): string => n.toString(16).padStart(64, '0');
const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));
const P = bn254.fields.Fp.ORDER;
const { Fp2 } = bn254.fields;
const g1 = (k: bigint): string => {
  const { x, y } = bn254.G1.Point.BASE.multiply(k).toAffine();
  return w(x) + w(y);
};
/** A G2 point in EIP-197's order (x imaginary, x real, y imaginary, y real). */
const g2Hex = (p: { x: { c0: bigint; c1: bigint }; y: { c0: bigint; c1: bigint } }): string =>
  w(p.x.c1) + w(p.x.c0) + w(p.y.c1) + w(p.y.c0);
const g2 = (k: bigint): string => g2Hex(bn254.G2.Point.BASE.multiply(k).toAffine());
const ours = new GethBN254();
const library = new NobleBN254();

const failure = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(EVMError);
    return (err as EVMError).error;
  }
  return undefined;
};

describe('BN254 with geth checks', () => {
  it('default: add, mul and pairing answer as the library on valid points', () => {
    for (const [a, b] of [
      [1n, 2n],
      [5n, 5n],
      [7n, 0n],
    ]) {
      const input = bytes(g1(a) + (b === 0n ? w(0n) + w(0n) : g1(b)));
      expect(ours.add(input)).toEqual(library.add(input));
    }
    for (const s of [0n, 1n, 3n, 2n ** 256n - 1n]) {
      const input = bytes(g1(9n) + w(s));
      expect(ours.mul(input)).toEqual(library.mul(input));
    }
    // e(2P, Q) * e(-P, 2Q) = 1, and e(P, Q) alone is not.
    const negP = bn254.G1.Point.BASE.negate().toAffine();
    const one = bytes(g1(2n) + g2(1n) + w(negP.x) + w(negP.y) + g2(2n));
    const notOne = bytes(g1(1n) + g2(1n));
    expect(ours.pairing(one)).toEqual(library.pairing(one));
    expect(ours.pairing(one)[31]).toBe(1);
    expect(ours.pairing(notOne)).toEqual(library.pairing(notOne));
    expect(ours.pairing(new Uint8Array(0))).toEqual(library.pairing(new Uint8Array(0)));
    expect(ours.pairing(bytes(w(0n).repeat(2) + g2(3n)))).toEqual(library.pairing(bytes(w(0n).repeat(2) + g2(3n))));
  });

  it("error: geth's texts for a coordinate past the modulus, a point off the curve, a G2 point outside the subgroup", () => {
    expect(failure(() => ours.add(bytes(w(1n) + w(3n) + g1(1n))))).toBe('point is not on curve');
    expect(failure(() => ours.add(bytes(g1(1n) + w(P) + w(2n))))).toBe('invalid fp.Element encoding');
    expect(failure(() => ours.mul(bytes(w(1n) + w(3n) + w(2n))))).toBe('point is not on curve');
    expect(failure(() => ours.pairing(bytes(w(1n) + w(3n) + g2(1n))))).toBe('point is not on curve');
    expect(failure(() => ours.pairing(bytes(g1(1n) + w(1n) + w(2n) + w(3n) + w(4n))))).toBe('point is not on curve');
    expect(failure(() => ours.pairing(bytes(g1(1n) + w(P) + w(0n) + w(0n) + w(1n))))).toBe('invalid fp.Element encoding');
    // A point on the twist with a large cofactor: x = 1 + i has a square root for some small shift of x.
    const b2 = Fp2.div(Fp2.fromBigTuple([3n, 0n]), Fp2.fromBigTuple([9n, 1n]));
    let onTwist: { x: { c0: bigint; c1: bigint }; y: { c0: bigint; c1: bigint } } | undefined;
    for (let k = 1n; onTwist === undefined; k++) {
      const x = Fp2.fromBigTuple([k, 1n]);
      try {
        onTwist = { x, y: Fp2.sqrt(Fp2.add(Fp2.mul(Fp2.sqr(x), x), b2)) };
      } catch {
        // no square root: the next x
      }
    }
    expect(failure(() => ours.pairing(bytes(g1(1n) + g2Hex(onTwist))))).toBe('point is not in correct subgroup');
    // The first bad point in input order names the failure, as geth's loop over the pairs.
    expect(failure(() => ours.pairing(bytes(g1(1n) + g2Hex(onTwist) + w(1n) + w(3n) + g2(1n))))).toBe('point is not in correct subgroup');
  });

  it('error: a pairing input that is not whole pairs is "bad elliptic curve pairing size", all gas used', () => {
    const wrapped = bn254PairingSize(() => ({ returnValue: new Uint8Array(32), executionGasUsed: 1n }));
    const r = wrapped({ data: new Uint8Array(64), gasLimit: 50_000n, common: { param: () => 0n } });
    expect([r.exceptionError?.error, r.executionGasUsed, r.returnValue.length]).toEqual(['bad elliptic curve pairing size', 50_000n, 0]);
    expect(wrapped({ data: new Uint8Array(192), gasLimit: 50_000n, common: { param: () => 0n } }).executionGasUsed).toBe(1n);
  });
});
