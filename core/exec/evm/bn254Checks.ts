/**
 * The BN254 precompiles (0x06 add, 0x07 mul, 0x08 pairing) as geth fails them (issue #15). The library's NobleBN254
 * throws a plain Error for a point off the curve, and its precompiles turn any such error into a REVERT: eth_call
 * then answered "execution reverted" where geth fails the call without revert data (all gas used, -32000 with the
 * curve library's text). This backend decodes each point the way geth's crypto/bn256/gnark does, in its order, and
 * throws an EVMError with geth's text, which the library passes through as the frame's error:
 * - a coordinate at or past the field modulus: "invalid fp.Element encoding";
 * - a point off the curve: "point is not on curve"; a G2 point outside the r-torsion: "point is not in correct
 *   subgroup"; all zero bytes is the point at infinity.
 * A pairing input that is not a whole number of 192-byte pairs is refused by `bn254PairingSize` with geth's
 * "bad elliptic curve pairing size". Results (and gas, charged by the library before it calls here) are unchanged.
 */
import { EVMError, type EVMBN254Interface } from '@ethereumjs/evm';
import { bn254 } from '@noble/curves/bn254.js';
import type { PrecompileCall, PrecompileResult } from './blake2fPrecompile.ts';

const { Fp, Fp2, Fp12 } = bn254.fields;
const G1 = bn254.G1.Point;
const G2 = bn254.G2.Point;
type G1Point = InstanceType<typeof G1>;
type G2Point = InstanceType<typeof G2>;

const NOT_CANONICAL = 'invalid fp.Element encoding';
const NOT_ON_CURVE = 'point is not on curve';
const NOT_IN_SUBGROUP = 'point is not in correct subgroup';
const PAIRING_SIZE = 'bad elliptic curve pairing size';
const PAIR_BYTES = 192;

/** An EVMError with geth's text (the library's type lists only its own texts). */
const gethFailure = (text: string): EVMError => new EVMError(text as ConstructorParameters<typeof EVMError>[0]);

const allZero = (b: Uint8Array, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
};

/** The field element at `at` (32 bytes big-endian), refused at or past the modulus as gnark's SetBytesCanonical. */
function element(b: Uint8Array, at: number): bigint {
  const v = BigInt(`0x${Buffer.from(b.buffer, b.byteOffset + at, 32).toString('hex')}`);
  if (v >= Fp.ORDER) throw gethFailure(NOT_CANONICAL);
  return v;
}

/** The G1 point at `at` (x, y); G1's cofactor is 1, so on the curve is in the group. */
function g1At(b: Uint8Array, at: number): G1Point {
  if (allZero(b, at, at + 64)) return G1.ZERO;
  const x = element(b, at);
  const y = element(b, at + 32);
  if (!Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), 3n))) throw gethFailure(NOT_ON_CURVE);
  return G1.fromAffine({ x, y });
}

/** The G2 point at `at`: x then y, each imaginary part first (EIP-197). */
function g2At(b: Uint8Array, at: number): G2Point {
  if (allZero(b, at, at + 128)) return G2.ZERO;
  const [xi, xr, yi, yr] = [element(b, at), element(b, at + 32), element(b, at + 64), element(b, at + 96)];
  const point = G2.fromAffine({ x: Fp2.fromBigTuple([xr, xi]), y: Fp2.fromBigTuple([yr, yi]) });
  try {
    point.assertValidity();
  } catch (err) {
    throw gethFailure(/subgroup/.test((err as Error).message) ? NOT_IN_SUBGROUP : NOT_ON_CURVE);
  }
  return point;
}

const g1Bytes = (p: G1Point): Uint8Array => {
  const out = new Uint8Array(64);
  if (p.is0()) return out;
  const { x, y } = p.toAffine();
  out.set(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'), 0);
  out.set(Buffer.from(y.toString(16).padStart(64, '0'), 'hex'), 32);
  return out;
};

/** The library's BN254 backend interface with geth's point checks and texts. */
export class GethBN254 implements EVMBN254Interface {
  /** `input` is 128 bytes (the library pads or cuts it). */
  add(input: Uint8Array): Uint8Array {
    return g1Bytes(g1At(input, 0).add(g1At(input, 64)));
  }

  /** `input` is 96 bytes: the point, then the scalar (any 256-bit value, reduced mod r). */
  mul(input: Uint8Array): Uint8Array {
    const p = g1At(input, 0);
    const s = bn254.fields.Fr.create(BigInt(`0x${Buffer.from(input.buffer, input.byteOffset + 64, 32).toString('hex')}`));
    return s === 0n || p.is0() ? new Uint8Array(64) : g1Bytes(p.multiply(s));
  }

  /** `input` is a whole number of 192-byte pairs; each pair's G1 then G2 checked in order, as geth. */
  pairing(input: Uint8Array): Uint8Array {
    const pairs: { g1: G1Point; g2: G2Point }[] = [];
    for (let at = 0; at + PAIR_BYTES <= input.length; at += PAIR_BYTES) {
      const g1 = g1At(input, at);
      const g2 = g2At(input, at + 64);
      if (!g1.is0() && !g2.is0()) pairs.push({ g1, g2 });
    }
    const out = new Uint8Array(32);
    if (Fp12.eql(bn254.pairingBatch(pairs), Fp12.ONE)) out[31] = 1;
    return out;
  }
}

/**
 * Wraps the library's pairing precompile: an input that is not whole pairs fails with geth's text (the library's
 * says "invalid input length"); all gas is used either way.
 */
export function bn254PairingSize(library: (opts: PrecompileCall) => PrecompileResult): (opts: PrecompileCall) => PrecompileResult {
  return (opts) =>
    opts.data.length % PAIR_BYTES === 0
      ? library(opts)
      : { returnValue: new Uint8Array(0), executionGasUsed: opts.gasLimit, exceptionError: gethFailure(PAIRING_SIZE) };
}
