/**
 * The secp256k1 seam: one interface, two implementations (native libsecp256k1 through the `secp256k1` npm package,
 * and pure-JS @noble/curves). Chain code depends only on this interface, so the gateway and Workers builds, which
 * carry no native code, and the node, which wants libsecp256k1's speed, share every caller.
 * See docs/decisions/0003-crypto-backends.md for the measurements behind the default choice.
 */
import { XoneError } from '../../errors.ts';

export type Secp256k1ErrorCode =
  | 'SECP256K1_INVALID_R'
  | 'SECP256K1_INVALID_S'
  | 'SECP256K1_INVALID_RECOVERY'
  | 'SECP256K1_INVALID_HASH'
  | 'SECP256K1_INVALID_PRIVATE_KEY'
  | 'SECP256K1_INVALID_PUBLIC_KEY'
  | 'SECP256K1_RECOVERY_FAILED'
  | 'SECP256K1_UNKNOWN_BACKEND';

/** Every refusal of a secp256k1 operation: an out-of-range scalar, a malformed input, a signature with no public key. */
export class Secp256k1Error extends XoneError<Secp256k1ErrorCode> {}

/** The group order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** n / 2 (floor): EIP-2 (Homestead) requires s <= this. */
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

/** A recoverable ECDSA signature as Ethereum stores it: r, s and the parity of R's y coordinate. */
export interface RecoverableSignature {
  r: bigint;
  s: bigint;
  recovery: 0 | 1;
}

/** Which implementation answers: libsecp256k1, the JS `elliptic` fallback the npm package drops to, or @noble/curves. */
export type Secp256k1BackendName = 'native' | 'elliptic' | 'noble';

export interface Secp256k1Backend {
  readonly name: Secp256k1BackendName;
  /** Human-readable detail: which binding file loaded, or why the native one did not. */
  readonly detail: string;
  /** Deterministic (RFC 6979) low-s signature of a 32-byte hash. */
  sign(hash32: Uint8Array, privateKey32: Uint8Array): RecoverableSignature;
  /** The 64-byte uncompressed public key (x || y, no 0x04 prefix) that produced the signature. */
  recoverPublicKey(hash32: Uint8Array, r: bigint, s: bigint, recovery: number): Uint8Array;
  /** The 64-byte uncompressed public key (x || y, no 0x04 prefix) of a private key. */
  publicKeyFromPrivate(privateKey32: Uint8Array): Uint8Array;
}

/**
 * Range checks shared by both backends, so a direct caller gets the same typed error whichever one runs:
 * r and s in [1, n-1], recovery 0 or 1, a 32-byte hash. Low-s is a fork rule and is checked by transaction validity.
 */
export function checkRecoverInput(hash32: Uint8Array, r: bigint, s: bigint, recovery: number): void {
  if (!(hash32 instanceof Uint8Array) || hash32.length !== 32) {
    throw new Secp256k1Error('SECP256K1_INVALID_HASH', `secp256k1: message hash must be 32 bytes, got ${hash32?.length}`, {
      length: hash32?.length,
    });
  }
  if (r <= 0n || r >= SECP256K1_N)
    throw new Secp256k1Error('SECP256K1_INVALID_R', 'secp256k1: signature r out of range [1, n-1]', { r: r.toString() });
  if (s <= 0n || s >= SECP256K1_N)
    throw new Secp256k1Error('SECP256K1_INVALID_S', 'secp256k1: signature s out of range [1, n-1]', { s: s.toString() });
  if (recovery !== 0 && recovery !== 1) {
    throw new Secp256k1Error('SECP256K1_INVALID_RECOVERY', `secp256k1: recovery id must be 0 or 1, got ${recovery}`, { recovery });
  }
}

/** A private key must be 32 bytes encoding an integer in [1, n-1]. */
export function checkPrivateKey(privateKey32: Uint8Array): void {
  if (!(privateKey32 instanceof Uint8Array) || privateKey32.length !== 32) {
    throw new Secp256k1Error('SECP256K1_INVALID_PRIVATE_KEY', 'secp256k1: private key must be 32 bytes', { length: privateKey32?.length });
  }
  const k = BigInt('0x' + Buffer.from(privateKey32.buffer, privateKey32.byteOffset, 32).toString('hex'));
  if (k === 0n || k >= SECP256K1_N)
    throw new Secp256k1Error('SECP256K1_INVALID_PRIVATE_KEY', 'secp256k1: private key out of range [1, n-1]');
}

/** A message hash must be exactly 32 bytes (we sign and recover keccak256 digests, never raw messages). */
export function checkHash(hash32: Uint8Array): void {
  if (!(hash32 instanceof Uint8Array) || hash32.length !== 32) {
    throw new Secp256k1Error('SECP256K1_INVALID_HASH', `secp256k1: message hash must be 32 bytes, got ${hash32?.length}`, {
      length: hash32?.length,
    });
  }
}

/** 32-byte big-endian encoding of a scalar already known to be < 2^256. */
export function scalarToBytes(value: bigint, out: Uint8Array, offset: number): void {
  const buf = Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
  out.set(buf, offset);
}

/** Big-endian bytes to a scalar (r, s or a private key). */
export function bytesToScalar(bytes: Uint8Array): bigint {
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));
}
