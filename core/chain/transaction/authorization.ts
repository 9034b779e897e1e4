/**
 * EIP-7702 authorizations: the message an authority signs is keccak256(0x05 || rlp([chainId, address, nonce])).
 * Recovery refuses what EIP-7702 says to skip (s above n/2, r or s out of range, a parity other than 0/1); the
 * executor checks chain id, nonce and the authority's code.
 */
import { bigIntToBytes, concatBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { encodeRlp } from '../../primitives/rlp.ts';
import { recoverAddress } from '../../primitives/secp256k1/address.ts';
import { defaultSecp256k1 } from '../../primitives/secp256k1/select.ts';
import { SECP256K1_HALF_N, SECP256K1_N, type Secp256k1Backend } from '../../primitives/secp256k1/types.ts';
import type { Authorization } from './types.ts';

/** The magic byte EIP-7702 prefixes to an authorization's RLP before hashing. */
export const AUTHORIZATION_MAGIC = 0x05;

/** The hash an authority signs. */
export function authorizationSigningHash(a: Pick<Authorization, 'chainId' | 'address' | 'nonce'>): Uint8Array {
  return keccak256(
    concatBytes(Uint8Array.of(AUTHORIZATION_MAGIC), encodeRlp([bigIntToBytes(a.chainId), a.address, bigIntToBytes(a.nonce)])),
  );
}

/** The authority's address, or undefined for a signature EIP-7702 says to skip. */
export function recoverAuthority(a: Authorization, backend: Secp256k1Backend = defaultSecp256k1()): Uint8Array | undefined {
  if (a.yParity > 1n || a.r < 1n || a.s < 1n || a.s > SECP256K1_HALF_N || a.r >= SECP256K1_N) return undefined;
  try {
    return recoverAddress(authorizationSigningHash(a), a.r, a.s, Number(a.yParity) as 0 | 1, backend);
  } catch {
    return undefined;
  }
}

/** Signs an authorization with a 32-byte private key (tests and the dev tools). */
export function signAuthorization(
  a: Pick<Authorization, 'chainId' | 'address' | 'nonce'>,
  privateKey: Uint8Array,
  backend: Secp256k1Backend = defaultSecp256k1(),
): Authorization {
  const sig = backend.sign(authorizationSigningHash(a), privateKey);
  return { chainId: a.chainId, address: a.address, nonce: a.nonce, yParity: BigInt(sig.recovery), r: sig.r, s: sig.s };
}
