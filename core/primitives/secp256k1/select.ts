/**
 * Picks the secp256k1 backend for this process: libsecp256k1 where its binding loads, @noble/curves otherwise.
 * `XONE_SECP256K1=noble` forces noble (to compare, or to rule out the native addon when chasing a bug).
 */
import { createNativeSecp256k1, nativeSecp256k1Available } from './native.ts';
import { createNobleSecp256k1 } from './noble.ts';
import { Secp256k1Error, type Secp256k1Backend } from './types.ts';

let chosen: Secp256k1Backend | undefined;

/**
 * Chooses a backend from a preference ('native' | 'noble' | undefined = automatic) without caching: native only
 * when its real binding loads (never the package's JS `elliptic` fallback).
 */
export function chooseSecp256k1(preference: string | undefined): Secp256k1Backend {
  if (preference === 'noble') return createNobleSecp256k1();
  if (preference !== undefined && preference !== '' && preference !== 'native' && preference !== 'auto') {
    throw new Secp256k1Error('SECP256K1_UNKNOWN_BACKEND', `XONE_SECP256K1 must be "native", "noble" or "auto", got "${preference}"`);
  }
  return nativeSecp256k1Available() ? createNativeSecp256k1() : createNobleSecp256k1();
}

/**
 * The process-wide default backend, chosen once (the choice depends only on the environment and the installed
 * binding, which do not change while the process runs).
 */
export function defaultSecp256k1(): Secp256k1Backend {
  chosen ??= chooseSecp256k1(process.env.XONE_SECP256K1);
  return chosen;
}
