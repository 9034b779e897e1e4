/**
 * From keys and signatures to Ethereum addresses: the address is the last 20 bytes of keccak256 of the 64-byte
 * uncompressed public key (Yellow Paper, eq. 284).
 */
import { keccak256 } from '../keccak.ts';
import { defaultSecp256k1 } from './select.ts';
import { Secp256k1Error, type Secp256k1Backend } from './types.ts';

/** The 20-byte address of a 64-byte uncompressed public key (no 0x04 prefix; a 65-byte one with it is accepted). */
export function addressFromPublicKey(publicKey: Uint8Array): Uint8Array {
  let key = publicKey;
  if (key.length === 65 && key[0] === 4) key = key.subarray(1);
  if (key.length !== 64) {
    throw new Secp256k1Error(
      'SECP256K1_INVALID_PUBLIC_KEY',
      `secp256k1: public key must be 64 bytes (uncompressed, no prefix), got ${publicKey.length}`,
    );
  }
  return keccak256(key).subarray(12);
}

/** The address that signed `hash32` with (r, s, recovery); throws a `Secp256k1Error` when none did. */
export function recoverAddress(
  hash32: Uint8Array,
  r: bigint,
  s: bigint,
  recovery: number,
  backend: Secp256k1Backend = defaultSecp256k1(),
): Uint8Array {
  return addressFromPublicKey(backend.recoverPublicKey(hash32, r, s, recovery));
}

/** The address of a private key. */
export function addressFromPrivateKey(privateKey32: Uint8Array, backend: Secp256k1Backend = defaultSecp256k1()): Uint8Array {
  return addressFromPublicKey(backend.publicKeyFromPrivate(privateKey32));
}
