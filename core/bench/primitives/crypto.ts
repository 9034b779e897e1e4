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
  /** Operations per wall-clock second over the whole run. */
  opsPerSec: number;
  /** Operations per second of this process's CPU time: steadier than wall time when other work shares the cores. */
  opsPerCpuSec: number;
  /**
   * The rate of the fastest ~1 ms batch: on a shared host, the batches that ran without being descheduled show
   * what one uncontended core does (the usual min-time estimator).
   */
  bestBatchOpsPerSec: number;
  ops: number;
  ms: number;
}

/** Runs `op(i)` in ~1 ms batches until `minMs` have passed (after a short warm-up) and returns the rates. */
function measure(op: (i: number) => void, minMs: number): Rate {
  // Warm up (JIT, caches) and calibrate a batch size of about 1 ms.
  let calibrated = 0;
  const warmStarted = performance.now();
  while (performance.now() - warmStarted < 20 || calibrated < 20) op(calibrated++);
  const batch = Math.max(1, Math.round(calibrated / (performance.now() - warmStarted)));
  let ops = 0;
  let bestBatchMs = Infinity;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < minMs) {
    const batchStarted = performance.now();
    for (let i = 0; i < batch; i++) op(ops + i);
    const now = performance.now();
    bestBatchMs = Math.min(bestBatchMs, now - batchStarted);
    ops += batch;
    elapsed = now - started;
  }
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    opsPerSec: Math.round((ops * 1000) / elapsed),
    opsPerCpuSec: Math.round((ops * 1000) / Math.max(cpuMs, 1)),
    bestBatchOpsPerSec: Math.round((batch * 1000) / bestBatchMs),
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
  recovery.nativeOverNobleCpu = ratio(nativeRate.opsPerCpuSec, nobleRate.opsPerCpuSec);

  const impls: Record<string, Keccak> = { 'hash-wasm': keccak256, noble: keccak256Noble };
  const nk = nativeKeccak();
  if (nk) impls['keccak-native'] = nk.hash;
  const keccak: Record<string, unknown> = { ours: keccakBackend, nativeLoaded: nk !== undefined };
  for (const size of [32, 532]) {
    const inputs = Array.from({ length: 64 }, (_, i) => new Uint8Array(size).fill(i));
    const rates: Record<string, number> = {};
    const cpuRates: Record<string, number> = {};
    const bestRates: Record<string, number> = {};
    for (const [name, hash] of Object.entries(impls)) {
      const rate = measure((i) => hash(inputs[i & 63]), minMs / 2);
      rates[name] = rate.opsPerSec;
      cpuRates[name] = rate.opsPerCpuSec;
      bestRates[name] = rate.bestBatchOpsPerSec;
    }
    keccak[`${size}B`] = {
      opsPerSec: rates,
      opsPerCpuSec: cpuRates,
      bestBatchOpsPerSec: bestRates,
      hashWasmOverNoble: ratio(cpuRates['hash-wasm'], cpuRates.noble),
      ...(nk ? { hashWasmOverNative: ratio(cpuRates['hash-wasm'], cpuRates['keccak-native']) } : {}),
    };
  }
  return {
    bench: 'crypto',
    thread: 'single',
    node: process.version,
    loadavg: loadavg().map((x) => Number(x.toFixed(2))),
    recoveriesPerSec: recovery,
    keccak,
    // Judged on the uncontended estimates: wall rates on a shared host measure the neighbours as much as the code.
    targets: {
      nativeRecoveriesPerSec: 12000,
      metOnCpuTime: native.name === 'native' && nativeRate.opsPerCpuSec >= 12000,
      metOnBestBatch: native.name === 'native' && nativeRate.bestBatchOpsPerSec >= 12000,
    },
  };
}
