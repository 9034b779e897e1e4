/**
 * The KZG and BLS12-381 backends of the EIP-4844 point-evaluation precompile (0x0a) and the EIP-2537 precompiles
 * (0x0b-0x11), chosen by measurement (decision 0034): c-kzg (native) over kzg-wasm, mcl-wasm over @noble/curves.
 *
 * Both load lazily so a node that never meets these precompiles pays nothing: c-kzg's trusted setup (1-3 s, once per
 * thread) on the first point evaluation; mcl-wasm's initialisation (~0.25 s) starts in the background on a thread's
 * first BLS call, and until it is done the BLS calls run on @noble/curves (the library's default). Both implement EIP-2537 exactly,
 * so which one answers a call changes its speed, never its result.
 */
import { createRequire } from 'node:module';
import { MCLBLS, NobleBLS, type EVMBLSInterface } from '@ethereumjs/evm';
import type { KZG } from '@ethereumjs/util';
import { nativeCall } from '../../primitives/nativeCalls.ts';

interface CKzg {
  loadTrustedSetup(precompute: number, filePath?: string): void;
  verifyKzgProof(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
}

const require = createRequire(import.meta.url);
let ckzg: CKzg | undefined;

function loadedKzg(): CKzg {
  if (ckzg === undefined) {
    const lib = require('c-kzg') as CKzg;
    lib.loadTrustedSetup(0);
    ckzg = lib;
  }
  return ckzg;
}

function bytes(hex: string): Uint8Array {
  return Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex');
}

function unsupported(): never {
  throw new Error('only KZG proof verification (the point-evaluation precompile) is available in this node');
}

/** The `KZG` interface ethereumjs' point-evaluation precompile calls (hex strings in, as the library passes them). */
export const kzg: KZG = {
  // Native (c-kzg, its trusted setup too): announced to the thread's owner (primitives/nativeCalls.ts).
  verifyProof: (commitment, z, y, proof) =>
    nativeCall(() => loadedKzg().verifyKzgProof(bytes(commitment), bytes(z), bytes(y), bytes(proof))),
  blobToKzgCommitment: unsupported,
  computeBlobProof: unsupported,
  verifyBlobProofBatch: unsupported,
  computeCells: unsupported,
  computeCellsAndProofs: unsupported,
  recoverCellsAndProofs: unsupported,
  verifyCellKzgProofBatch: unsupported,
};

const noble = new NobleBLS();
let mcl: EVMBLSInterface | undefined;
let mclLoading: Promise<void> | undefined;

/**
 * Starts loading mcl-wasm in this thread (once) and resolves when it answers the BLS calls; on failure the calls stay
 * on @noble/curves (correct, slower). Not at module load: every worker thread (RPC pool, recovery) imports this
 * module, and an initialisation competing with a thread's first job made that job late.
 */
export function loadMcl(): Promise<void> {
  mclLoading ??= import('mcl-wasm')
    .then(async (lib) => {
      await lib.init(lib.BLS12_381);
      const backend = new MCLBLS(lib);
      backend.init();
      mcl = backend;
    })
    .catch(() => {
      // Stays on @noble/curves; nothing to report per call.
    });
  return mclLoading;
}

function backend(): EVMBLSInterface {
  if (mcl !== undefined) return mcl;
  void loadMcl();
  return noble;
}

/** The `bls` option of every EVM the node builds. */
export const bls: EVMBLSInterface = {
  addG1: (input) => backend().addG1(input),
  addG2: (input) => backend().addG2(input),
  mapFPtoG1: (input) => backend().mapFPtoG1(input),
  mapFP2toG2: (input) => backend().mapFP2toG2(input),
  msmG1: (input) => backend().msmG1(input),
  msmG2: (input) => backend().msmG2(input),
  pairingCheck: (input) => backend().pairingCheck(input),
};

/** Which BLS backend answers now (for benchmarks and the node's startup log). */
export function blsBackend(): 'mcl-wasm' | 'noble' {
  return mcl === undefined ? 'noble' : 'mcl-wasm';
}
