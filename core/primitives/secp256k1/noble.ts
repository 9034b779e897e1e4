/**
 * @noble/curves secp256k1: audited pure JS, no native code, so it runs everywhere (gateway, Workers, a node whose
 * libsecp256k1 binding does not load). About 25x slower than libsecp256k1 on recovery.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  checkHash,
  checkPrivateKey,
  checkRecoverInput,
  Secp256k1Error,
  type RecoverableSignature,
  type Secp256k1Backend,
} from './types.ts';

/** The @noble/curves backend. */
export function createNobleSecp256k1(): Secp256k1Backend {
  return {
    name: 'noble',
    detail: '@noble/curves secp256k1 (pure JS)',
    sign(hash32: Uint8Array, privateKey32: Uint8Array): RecoverableSignature {
      checkHash(hash32);
      checkPrivateKey(privateKey32);
      // prehash: false because we sign the keccak hash itself; lowS: true is Ethereum's EIP-2 form (also libsecp256k1's).
      const sig = secp256k1.Signature.fromBytes(
        secp256k1.sign(hash32, privateKey32, { prehash: false, lowS: true, format: 'recovered' }),
        'recovered',
      );
      return { r: sig.r, s: sig.s, recovery: sig.recovery as 0 | 1 };
    },
    recoverPublicKey(hash32: Uint8Array, r: bigint, s: bigint, recovery: number): Uint8Array {
      checkRecoverInput(hash32, r, s, recovery);
      try {
        return new secp256k1.Signature(r, s, recovery).recoverPublicKey(hash32).toBytes(false).subarray(1);
      } catch (err) {
        // No curve point has x = r, or the recovered point is at infinity.
        throw new Secp256k1Error('SECP256K1_RECOVERY_FAILED', `secp256k1: public key recovery failed: ${(err as Error).message}`);
      }
    },
    publicKeyFromPrivate(privateKey32: Uint8Array): Uint8Array {
      checkPrivateKey(privateKey32);
      return secp256k1.getPublicKey(privateKey32, false).subarray(1);
    },
  };
}
