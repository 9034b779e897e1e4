/**
 * libsecp256k1 through the npm `secp256k1@5` package (~25x @noble/curves on recovery, measured in
 * docs/decisions/0003-crypto-backends.md). That package's entry silently swaps in a slow JS `elliptic` build when its
 * native binding fails to load, so we load `secp256k1/bindings` directly to know which one we got, and say so in
 * `name` and `detail` instead of running 30x slower without a word.
 */
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import { nativeCall, NativeCallsClosedError } from '../nativeCalls.ts';
import {
  bytesToScalar,
  checkHash,
  checkPrivateKey,
  checkRecoverInput,
  scalarToBytes,
  Secp256k1Error,
  type RecoverableSignature,
  type Secp256k1Backend,
} from './types.ts';

/** The subset of the `secp256k1` package API we call (the same for its native and elliptic builds). */
interface Secp256k1Package {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean, output?: Uint8Array): Uint8Array;
  publicKeyCreate(seckey: Uint8Array, compressed: boolean): Uint8Array;
}

const require = createRequire(import.meta.url);

interface Loaded {
  lib: Secp256k1Package;
  native: boolean;
  detail: string;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  try {
    const lib = require('secp256k1/bindings') as Secp256k1Package;
    loaded = { lib, native: true, detail: `libsecp256k1 binding ${bindingFile()}` };
  } catch (err) {
    const lib = require('secp256k1/elliptic') as Secp256k1Package;
    loaded = {
      lib,
      native: false,
      detail: `native binding failed to load (${(err as Error).message.split('\n')[0]}); JS elliptic fallback`,
    };
  }
  return loaded;
}

/** Which .node file node-gyp-build picked (a shipped prebuild or a local build/Release). */
function bindingFile(): string {
  try {
    const pkgDir = dirname(require.resolve('secp256k1/package.json'));
    const gypBuild = createRequire(require.resolve('secp256k1/package.json'))('node-gyp-build') as { path(dir: string): string };
    return relative(pkgDir, gypBuild.path(pkgDir));
  } catch {
    return '(path unknown)';
  }
}

/** True when libsecp256k1's native binding loads in this process. */
export function nativeSecp256k1Available(): boolean {
  return load().native;
}

function wrapLibError(err: unknown, what: string): Secp256k1Error {
  return new Secp256k1Error('SECP256K1_RECOVERY_FAILED', `secp256k1: ${what}: ${(err as Error).message}`);
}

/**
 * The `secp256k1` package backend. Its `name` is 'native' when libsecp256k1 loaded and 'elliptic' when the package
 * fell back to JS; `defaultSecp256k1()` only picks it in the first case.
 */
export function createNativeSecp256k1(): Secp256k1Backend {
  const { lib, native, detail } = load();
  return wrap(lib, native ? 'native' : 'elliptic', detail);
}

/**
 * The package's JS `elliptic` build on purpose: what `createNativeSecp256k1()` degrades to when the binding does not
 * load. Exists so tests can hold that path to the same vectors; nothing should choose it for speed.
 */
export function createEllipticSecp256k1(): Secp256k1Backend {
  return wrap(require('secp256k1/elliptic') as Secp256k1Package, 'elliptic', 'secp256k1 package JS fallback (elliptic), loaded explicitly');
}

function wrap(lib: Secp256k1Package, name: 'native' | 'elliptic', detail: string): Secp256k1Backend {
  return {
    name,
    detail,
    sign(hash32: Uint8Array, privateKey32: Uint8Array): RecoverableSignature {
      checkHash(hash32);
      checkPrivateKey(privateKey32);
      const { signature, recid } = nativeCall(() => lib.ecdsaSign(hash32, privateKey32));
      return { r: bytesToScalar(signature.subarray(0, 32)), s: bytesToScalar(signature.subarray(32, 64)), recovery: recid as 0 | 1 };
    },
    recoverPublicKey(hash32: Uint8Array, r: bigint, s: bigint, recovery: number): Uint8Array {
      checkRecoverInput(hash32, r, s, recovery);
      const sig = new Uint8Array(64);
      scalarToBytes(r, sig, 0);
      scalarToBytes(s, sig, 32);
      let pub: Uint8Array;
      try {
        pub = nativeCall(() => lib.ecdsaRecover(sig, recovery, hash32, false));
      } catch (err) {
        if (err instanceof NativeCallsClosedError) throw err;
        throw wrapLibError(err, 'public key recovery failed');
      }
      return pub.subarray(1);
    },
    publicKeyFromPrivate(privateKey32: Uint8Array): Uint8Array {
      checkPrivateKey(privateKey32);
      return nativeCall(() => lib.publicKeyCreate(privateKey32, false)).subarray(1);
    },
  };
}
