/**
 * Crypto figures for `npm run bench:primitives` (single thread): sender recoveries/s per secp256k1 backend and
 * keccak-256 ops/s at 32 B (a trie node key) and 532 B (a typical transaction) per implementation, each with the
 * ratio to its peer measured in the same run. The choice these numbers support is in
 * docs/decisions/0003-crypto-backends.md.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { recoverSender } from '../../chain/transaction/sender.ts';
import { makeSignedTransfers } from '../../chain/transaction/testing.ts';
import { keccak256, keccak256Noble, keccakBackend } from '../../primitives/keccak.ts';
import { createNativeSecp256k1, nativeSecp256k1Available } from '../../primitives/secp256k1/native.ts';
import { createNobleSecp256k1 } from '../../primitives/secp256k1/noble.ts';
import { defaultSecp256k1 } from '../../primitives/secp256k1/select.ts';
import type { Secp256k1Backend } from '../../primitives/secp256k1/types.ts';

export interface BenchCryptoOptions {
  /** Minimum wall time per measurement (ms). Default 1000; lower for a quick look. */
  minMs?: number;
}

interface Rate {
  /** Operations per wall-clock second. */
  opsPerSec: number;
  /** Operations per second of this process's CPU time: steadier than wall time when other work shares the cores. */
  opsPerCpuSec: number;
  ops: number;
  ms: number;
}

/** Runs `op(i)` in growing batches until `minMs` have passed (after a short warm-up) and returns the rate. */
function measure(op: (i: number) => void, minMs: number): Rate {
  for (let i = 0; i < 50; i++) op(i);
  let ops = 0;
  let batch = 16;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < batch; i++) op(ops + i);
    ops += batch;
    elapsed = performance.now() - started;
    if (elapsed < minMs / 4) batch *= 2;
  }
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    opsPerSec: Math.round((ops * 1000) / elapsed),
    opsPerCpuSec: Math.round((ops * 1000) / Math.max(cpuMs, 1)),
    ops,
    ms: Math.round(elapsed),
  };
}

const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));

function recoveries(backend: Secp256k1Backend, minMs: number): Rate & { backend: string; detail: string } {
  // Distinct transactions (512 senders) so no cache in the backend can help; includes the signing hash, as import does.
  const txs = makeSignedTransfers(512, 2040n);
  const rate = measure((i) => recoverSender(txs[i % txs.length], backend), minMs);
  return { backend: backend.name, detail: backend.detail, ...rate };
}

type Keccak = (data: Uint8Array) => Uint8Array;

/** The native `keccak` package (keccak@3), when its binding loads; undefined otherwise. */
function nativeKeccak(): { hash: Keccak; detail: string } | undefined {
  const require = createRequire(import.meta.url);
  try {
    const create = require('keccak/bindings') as (alg: string) => { update(d: Buffer): { digest(): Buffer } };
    return {
      hash: (data) =>
        create('keccak256')
          .update(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
          .digest(),
      detail: 'keccak@3 native binding',
    };
  } catch {
    return undefined;
  }
}

/** Measures everything above; returns one JSON-able record (the caller prints it). */
export async function benchCrypto({ minMs = 1000 }: BenchCryptoOptions = {}): Promise<Record<string, unknown>> {
  const recovery: Record<string, unknown> = { default: defaultSecp256k1().name, nativeBindingLoaded: nativeSecp256k1Available() };
  const native = createNativeSecp256k1();
  const nativeRate = recoveries(native, minMs);
  const nobleRate = recoveries(createNobleSecp256k1(), minMs);
  recovery[native.name] = nativeRate;
  recovery.noble = nobleRate;
  recovery.nativeOverNoble = ratio(nativeRate.opsPerSec, nobleRate.opsPerSec);

  const impls: Record<string, Keccak> = { 'hash-wasm': keccak256, noble: keccak256Noble };
  const nk = nativeKeccak();
  if (nk) impls['keccak-native'] = nk.hash;
  const keccak: Record<string, unknown> = { ours: keccakBackend, nativeLoaded: nk !== undefined };
  for (const size of [32, 532]) {
    const inputs = Array.from({ length: 64 }, (_, i) => new Uint8Array(size).fill(i));
    const rates: Record<string, number> = {};
    const cpuRates: Record<string, number> = {};
    for (const [name, hash] of Object.entries(impls)) {
      const rate = measure((i) => hash(inputs[i & 63]), minMs / 2);
      rates[name] = rate.opsPerSec;
      cpuRates[name] = rate.opsPerCpuSec;
    }
    keccak[`${size}B`] = {
      opsPerSec: rates,
      opsPerCpuSec: cpuRates,
      hashWasmOverNoble: ratio(rates['hash-wasm'], rates.noble),
      ...(nk ? { hashWasmOverNative: ratio(rates['hash-wasm'], rates['keccak-native']) } : {}),
    };
  }
  return {
    bench: 'crypto',
    thread: 'single',
    node: process.version,
    loadavg: loadavg().map((x) => Number(x.toFixed(2))),
    recoveriesPerSec: recovery,
    keccak,
    targets: { nativeRecoveriesPerSec: 12000, met: native.name === 'native' && nativeRate.opsPerSec >= 12000 },
  };
}
