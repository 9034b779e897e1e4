/** Public surface of the secp256k1 seam (see types.ts for the interface and why there are two backends). */
export {
  SECP256K1_HALF_N,
  SECP256K1_N,
  Secp256k1Error,
  type RecoverableSignature,
  type Secp256k1Backend,
  type Secp256k1BackendName,
  type Secp256k1ErrorCode,
} from './types.ts';
export { createEllipticSecp256k1, createNativeSecp256k1, nativeSecp256k1Available } from './native.ts';
export { createNobleSecp256k1 } from './noble.ts';
export { chooseSecp256k1, defaultSecp256k1 } from './select.ts';
export { addressFromPrivateKey, addressFromPublicKey, recoverAddress } from './address.ts';
