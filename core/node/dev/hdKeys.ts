/**
 * BIP-39 seed and BIP-32 private-key derivation for the dev chain's accounts, all on node:crypto (PBKDF2,
 * HMAC-SHA512, and OpenSSL's secp256k1 through ECDH for public keys). @scure/bip32 does the same with pure-JS curve
 * math, which took ~150 ms of a dev node's start (its multiplication tables are built on first use), and the native
 * secp256k1 addon costs its own load; this takes a few ms, and `npm start` must answer RPC within 500 ms (issue #5).
 * test/node/dev/hdKeys.test.ts checks both agree.
 */
import { createECDH, createHmac, pbkdf2Sync } from 'node:crypto';
import type { Secp256k1Backend } from '../../primitives/secp256k1/index.ts';
import { SECP256K1_N } from '../../primitives/secp256k1/types.ts';

/** What the derivation needs from a curve: the 64-byte uncompressed public key (x || y) of a private key. */
export type PublicKeyCurve = Pick<Secp256k1Backend, 'publicKeyFromPrivate'>;

/** secp256k1 public keys from OpenSSL (node:crypto ECDH): no addon to load, ~0.1 ms a key. */
export const ecdhCurve: PublicKeyCurve = {
  publicKeyFromPrivate(privateKey32) {
    const ecdh = createECDH('secp256k1');
    ecdh.setPrivateKey(privateKey32);
    return ecdh.getPublicKey().subarray(1);
  },
};

const HARDENED = 0x80000000;

interface Node {
  key: Uint8Array;
  chainCode: Uint8Array;
}

/** BIP-39: the 64-byte seed of a mnemonic (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase). */
export function mnemonicSeed(mnemonic: string, passphrase = ''): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), ('mnemonic' + passphrase).normalize('NFKD'), 2048, 64, 'sha512');
}

function compressedPublicKey(key: Uint8Array, curve: PublicKeyCurve): Uint8Array {
  const xy = curve.publicKeyFromPrivate(key);
  const out = new Uint8Array(33);
  out[0] = (xy[63] & 1) === 1 ? 3 : 2;
  out.set(xy.subarray(0, 32), 1);
  return out;
}

function child(parent: Node, index: number, curve: PublicKeyCurve): Node {
  const data = new Uint8Array(37);
  if (index >= HARDENED) data.set(parent.key, 1);
  else data.set(compressedPublicKey(parent.key, curve), 0);
  new DataView(data.buffer).setUint32(33, index);
  const i = createHmac('sha512', parent.chainCode).update(data).digest();
  const tweak = BigInt('0x' + i.subarray(0, 32).toString('hex'));
  const key = (tweak + BigInt('0x' + Buffer.from(parent.key).toString('hex'))) % SECP256K1_N;
  // Probability below 2^-127; BIP-32 says to skip to the next index, the dev path never meets it.
  if (tweak >= SECP256K1_N || key === 0n) throw new Error(`BIP-32: index ${index} gives an invalid key`);
  return { key: Buffer.from(key.toString(16).padStart(64, '0'), 'hex'), chainCode: i.subarray(32) };
}

/** Parses `m/44'/60'/0'/0` into child indexes (hardened ones with the top bit set). */
function parsePath(path: string): number[] {
  const parts = path.split('/');
  if (parts[0] !== 'm') throw new Error(`BIP-32 path must start with m/: ${path}`);
  return parts.slice(1).map((p) => {
    const hardened = p.endsWith("'");
    const n = Number(hardened ? p.slice(0, -1) : p);
    if (!Number.isInteger(n) || n < 0 || n >= HARDENED) throw new Error(`bad BIP-32 path element ${p} in ${path}`);
    return hardened ? n + HARDENED : n;
  });
}

/**
 * Private keys `<basePath>/0` .. `<basePath>/(count-1)` of the seed (BIP-32, non-hardened last step), e.g. base
 * `m/44'/60'/0'/0` for Ethereum's default accounts.
 */
export function derivePrivateKeys(seed: Uint8Array, basePath: string, count: number, curve: PublicKeyCurve = ecdhCurve): Uint8Array[] {
  const master = createHmac('sha512', 'Bitcoin seed').update(seed).digest();
  let node: Node = { key: master.subarray(0, 32), chainCode: master.subarray(32) };
  for (const index of parsePath(basePath)) node = child(node, index, curve);
  const base = node;
  return Array.from({ length: count }, (_, i) => child(base, i, curve).key);
}
