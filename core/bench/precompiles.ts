/**
 * `npm run bench:precompiles`: the KZG and BLS12-381 backends the node uses against the alternatives on npm, measured
 * through the precompiles themselves (decision 0034). KZG: one EIP-4844 point evaluation (0x0a's verifyKzgProof) and
 * the trusted-setup load, c-kzg (chosen) against kzg-wasm. BLS: EIP-2537 G1ADD, G1MSM of 8 pairs and a 2-pair
 * pairing check through ethereumjs' precompiles, mcl-wasm (chosen) against @noble/curves (the library default).
 * Prints one JSON document on stdout and a one-line summary on stderr. `--quick` runs fewer rounds.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { createEVM, MCLBLS, NobleBLS, type EVMBLSInterface } from '@ethereumjs/evm';
import { Common, Mainnet } from '@ethereumjs/common';
import { createAddressFromString } from '@ethereumjs/util';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const quick = process.argv.includes('--quick');
const rounds = quick ? 20 : 200;
const load = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));
const loadStart = load();
const require = createRequire(import.meta.url);

interface CKzg {
  loadTrustedSetup(precompute: number): void;
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeKzgProof(blob: Uint8Array, z: Uint8Array): [Uint8Array, Uint8Array];
  verifyKzgProof(c: Uint8Array, z: Uint8Array, y: Uint8Array, p: Uint8Array): boolean;
}

function perCall(n: number, f: () => boolean): number {
  for (let i = 0; i < Math.min(20, n); i++) f();
  const t = performance.now();
  for (let i = 0; i < n; i++) if (!f()) throw new Error('verification failed');
  return (performance.now() - t) / n;
}

async function kzg(): Promise<Record<string, number>> {
  const ckzg = require('c-kzg') as CKzg;
  let t = performance.now();
  ckzg.loadTrustedSetup(0);
  const ckzgSetupMs = performance.now() - t;
  const { loadKZG } = (await import('kzg-wasm')) as {
    loadKZG: () => Promise<{ verifyProof(c: string, z: string, y: string, p: string): boolean }>;
  };
  t = performance.now();
  const wasm = await loadKZG();
  const wasmSetupMs = performance.now() - t;
  const blob = new Uint8Array(131072);
  for (let i = 0; i < 4096; i++) blob[i * 32 + 31] = i & 0xff;
  const commitment = ckzg.blobToKzgCommitment(blob);
  const z = new Uint8Array(32);
  z[31] = 7;
  const [proof, y] = ckzg.computeKzgProof(blob, z);
  const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;
  const args = [hex(commitment), hex(z), hex(y), hex(proof)] as const;
  return {
    ckzgVerifyMs: perCall(rounds, () => ckzg.verifyKzgProof(commitment, z, y, proof)),
    kzgWasmVerifyMs: perCall(Math.ceil(rounds / 5), () => wasm.verifyProof(...args)),
    ckzgSetupMs,
    kzgWasmSetupMs: wasmSetupMs,
  };
}

async function bls(): Promise<Record<string, Record<string, number>>> {
  const pad = (x: bigint): string => x.toString(16).padStart(128, '0');
  const g1 = bls12_381.G1.Point.BASE.toAffine();
  const g1n = bls12_381.G1.Point.BASE.negate().toAffine();
  const g2 = bls12_381.G2.Point.BASE.toAffine();
  const g1hex = (p: { x: bigint; y: bigint }): string => pad(p.x) + pad(p.y);
  const g2hex = pad(g2.x.c0) + pad(g2.x.c1) + pad(g2.y.c0) + pad(g2.y.c1);
  const inputs: Array<[string, string, Uint8Array, number]> = [
    ['g1add', '0b', Buffer.from(g1hex(g1) + g1hex(g1n), 'hex'), rounds * 2],
    ['g1msm8', '0c', Buffer.from((g1hex(g1) + 'ff'.repeat(31) + '00').repeat(8), 'hex'), rounds / 4],
    ['pairing2', '0f', Buffer.from(g1hex(g1) + g2hex + g1hex(g1n) + g2hex, 'hex'), rounds / 4],
  ];
  const mcl = (await import('mcl-wasm')) as unknown as { init(curve: number): Promise<void>; BLS12_381: number };
  await mcl.init(mcl.BLS12_381);
  const out: Record<string, Record<string, number>> = {};
  for (const [name, backend] of [
    ['mcl-wasm', new MCLBLS(mcl)],
    ['noble', new NobleBLS()],
  ] as Array<[string, EVMBLSInterface]>) {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }), bls: backend });
    const row: Record<string, number> = {};
    for (const [label, addr, data, n] of inputs) {
      const to = createAddressFromString(`0x${addr.padStart(40, '0')}`);
      const run = () => evm.runCall({ to, data, gasLimit: 10_000_000n });
      for (let i = 0; i < 3; i++) if ((await run()).execResult.exceptionError) throw new Error(`${name} ${label} failed`);
      const t = performance.now();
      for (let i = 0; i < n; i++) await run();
      row[`${label}Ms`] = Number(((performance.now() - t) / n).toFixed(3));
    }
    out[name] = row;
  }
  return out;
}

const k = await kzg();
const b = await bls();
const report = {
  bench: 'precompiles',
  date: new Date().toISOString(),
  host: { node: process.version, loadStart, loadEnd: load() },
  kzg: k,
  bls: b,
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
const mcl = b['mcl-wasm'] as Record<string, number>;
const noble = b.noble as Record<string, number>;
process.stderr.write(
  `precompiles: point evaluation c-kzg ${k.ckzgVerifyMs?.toFixed(2)} ms vs kzg-wasm ${k.kzgWasmVerifyMs?.toFixed(2)} ms; ` +
    `pairing(2) mcl-wasm ${mcl.pairing2Ms} ms vs noble ${noble.pairing2Ms} ms; load ${loadStart.join(' ')}\n`,
);
