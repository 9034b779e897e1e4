/**
 * keccak-256. The backend is chosen by measurement (docs/decisions/0003-crypto-backends.md): a reused hash-wasm
 * hasher is ~10x faster than @noble/hashes here; @noble/hashes stays as the fallback where WebAssembly cannot load.
 * The hasher is synchronous once created, so one shared instance is safe on a single thread.
 */
import { createKeccak } from 'hash-wasm';
import { keccak_256 as nobleKeccak } from '@noble/hashes/sha3.js';

export type KeccakBackend = 'hash-wasm' | 'noble';

type Hasher = Awaited<ReturnType<typeof createKeccak>>;

let hasher: Hasher | undefined;
try {
  hasher = await createKeccak(256);
} catch {
  hasher = undefined;
}

/** Which implementation `keccak256` uses in this thread. */
export const keccakBackend: KeccakBackend = hasher ? 'hash-wasm' : 'noble';

/** keccak-256 of the bytes (the pre-standard SHA-3 padding Ethereum uses). */
export const keccak256: (data: Uint8Array) => Uint8Array = hasher
  ? (data) => {
      const h = hasher as Hasher;
      h.init();
      h.update(data);
      return h.digest('binary');
    }
  : (data) => nobleKeccak(data);

/** The @noble/hashes implementation, kept callable for cross-checks and benchmarks. */
export const keccak256Noble = (data: Uint8Array): Uint8Array => nobleKeccak(data);

/** keccak256 of the empty string and of RLP("") / RLP([]), which Ethereum uses as sentinels. */
export const KECCAK_EMPTY = keccak256(new Uint8Array(0));
