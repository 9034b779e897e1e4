/**
 * `npm run bench:produce [-- --blocks 4 --quick --per-block N]`: the producer's chain-thread work per full block, in-thread (no RPC,
 * no worker), on a real datadir under `.xone/bench-produce/`: pre-signed dev-mnemonic transfers (bench:rpc's shape,
 * 1,428 × 21,000 gas = one 30 M-gas block) go through `ChainService.produce` one full block at a time, with the
 * phase split (decode, build: execute / state root / body roots, seal, commit). A follower service then imports the
 * produced blocks (full verification) and must reach the same head hash and state root; its per-block time is the
 * peer figure (a producer that executes once should beat a verifying import). Prints one JSON object and a summary.
 * `--per-block 1 --blocks 300`: an automine dev block instead (one transfer, the Osaka system calls around it).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../chain/genesis/index.ts';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { signDevTransfer } from './rpc/transfers.ts';
import { findmnt, loadAverage } from './store/env.ts';
import { ChainService, type ProducePhases } from '../chainService/chainService.ts';
import { rawBlock } from '../store/read/rawBlock.ts';
import { devAccounts, devGenesisJson } from '../node/dev/devChain.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const BLOCKS = arg('blocks', process.argv.includes('--quick') ? 3 : 6);
const PER_BLOCK = arg('per-block', 1428);

const accounts = devAccounts();
const keys = accounts.map((a) => hexToBytes(a.privateKey));
const addresses = accounts.map((a) => hexToBytes(a.address));
const genesis = parseGenesis(devGenesisJson(accounts));
const root = join(process.cwd(), '.xone', 'bench-produce');
rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });

/** Block b's transfers: transaction i from account i % 20, nonces continuing across blocks. */
function signBlock(b: number): { raw: Uint8Array; sender: Uint8Array }[] {
  const out = [];
  for (let j = 0; j < PER_BLOCK; j++) {
    const i = b * PER_BLOCK + j;
    const a = i % keys.length;
    const tx = signDevTransfer(i, keys, 1337n, 'bench-produce');
    out.push({ raw: tx.raw, sender: addresses[a] });
  }
  return out;
}

const round = (x: number): number => Math.round(x * 10) / 10;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const loadBefore = loadAverage();
const blocks = Array.from({ length: BLOCKS }, (_, b) => signBlock(b));
const producer = ChainService.open({ datadir: join(root, 'producer'), genesis, batch: 0, signerKey: keys[0] });
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const produced: { totalMs: number; cpuMs: number; phases: ProducePhases; txs: number }[] = [];
const hashes: Uint8Array[] = [];
for (const [b, txs] of blocks.entries()) {
  const t0 = performance.now();
  const c0 = cpuNow();
  const result = await producer.produce({ txs, timestamp: 10n + 2n * BigInt(b) });
  produced.push({ totalMs: performance.now() - t0, cpuMs: cpuNow() - c0, phases: result.phases, txs: result.head.txHashes.length });
  hashes.push(result.head.hash);
  if (result.dropped.length > 0) throw new Error(`block ${b}: ${result.dropped.length} transactions dropped`);
}
const producerHead = producer.head();

const follower = ChainService.open({ datadir: join(root, 'follower'), genesis, batch: 0 });
const imported: number[] = [];
const importedCpu: number[] = [];
const importedSplit: { recoverMs: number; executeMs: number; rootMs: number; commitMs: number }[] = [];
for (const hash of hashes) {
  const raw = rawBlock(producer.store, hash) as Uint8Array;
  const t0 = performance.now();
  const c0 = cpuNow();
  const [update] = await follower.importBlocks([raw]);
  importedSplit.push(update.timings.cpu);
  imported.push(performance.now() - t0);
  importedCpu.push(cpuNow() - c0);
}
const followerHead = follower.head();
if (
  bytesToHex(followerHead.hash) !== bytesToHex(producerHead.hash) ||
  bytesToHex(followerHead.header.stateRoot) !== bytesToHex(producerHead.header.stateRoot)
) {
  throw new Error('follower did not reach the producer head');
}
producer.close();
follower.close();

// The first block pays for JIT warm-up and cold caches: the steady figure is the median of the rest.
const steady = produced.slice(1);
const pick = (f: (p: (typeof produced)[number]) => number): number => round(median(steady.map(f)));
const result = {
  bench: 'produce',
  blocks: BLOCKS,
  txsPerBlock: PER_BLOCK,
  producerMsPerBlock: { first: round(produced[0].totalMs), median: pick((p) => p.totalMs), all: produced.map((p) => round(p.totalMs)) },
  producerCpuMsPerBlock: { first: round(produced[0].cpuMs), median: pick((p) => p.cpuMs) },
  phasesMedianCpuMs: {
    decode: pick((p) => p.phases.cpu.decodeMs),
    execute: pick((p) => p.phases.build.cpu.executeMs),
    bodyRoots: pick((p) => p.phases.build.cpu.bodyRootsMs),
    stateRoot: pick((p) => p.phases.cpu.stateRootMs),
    seal: pick((p) => p.phases.cpu.sealMs),
    commit: pick((p) => p.phases.cpu.commitMs),
  },
  phasesMedianMs: {
    decode: pick((p) => p.phases.decodeMs),
    execute: pick((p) => p.phases.build.executeMs),
    bodyRoots: pick((p) => p.phases.build.bodyRootsMs),
    stateRoot: pick((p) => p.phases.stateRootMs),
    seal: pick((p) => p.phases.sealMs),
    commit: pick((p) => p.phases.commitMs),
  },
  followerImportMsPerBlock: { first: round(imported[0]), median: round(median(imported.slice(1))) },
  followerImportCpuMsPerBlock: { first: round(importedCpu[0]), median: round(median(importedCpu.slice(1))) },
  followerPhasesMedianCpuMs: {
    recover: round(median(importedSplit.slice(1).map((t) => t.recoverMs))),
    execute: round(median(importedSplit.slice(1).map((t) => t.executeMs))),
    stateRoot: round(median(importedSplit.slice(1).map((t) => t.rootMs))),
    commit: round(median(importedSplit.slice(1).map((t) => t.commitMs))),
  },
  /** CPU, not wall: the figure that survives a shared host. */
  ratioFollowerOverProducerCpu: Math.round((median(importedCpu.slice(1)) / median(steady.map((p) => p.cpuMs))) * 100) / 100,
  sameHead: true,
  filesystem: findmnt(root),
  load: { before: loadBefore, after: loadAverage() },
};
console.log(JSON.stringify(result));
console.error(
  `bench:produce: ${result.producerMsPerBlock.median} ms (CPU ${result.producerCpuMsPerBlock.median}) per ${PER_BLOCK}-tx block CPU split: execute ${result.phasesMedianCpuMs.execute}, body roots ${result.phasesMedianCpuMs.bodyRoots}, state root ${result.phasesMedianCpuMs.stateRoot}, seal ${result.phasesMedianCpuMs.seal}, commit ${result.phasesMedianCpuMs.commit}, decode ${result.phasesMedianCpuMs.decode}); follower import ${result.followerImportMsPerBlock.median} ms (CPU ${result.followerImportCpuMsPerBlock.median}, x${result.ratioFollowerOverProducerCpu}); load ${loadBefore[0]}`,
);
rmSync(root, { recursive: true, force: true });
