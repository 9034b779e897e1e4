/**
 * `npm run soak:follow -- --minutes 60` (issue #18: "a follower must never grow without bound"): the bench:follow
 * producer (`xone run --mine` on the prebuilt chain of full transfer blocks) keeps sealing a block every 2 s with
 * transfers the soak submits to it (`--tx-per-block`, default 400, each to a fresh recipient, so the state grows as a
 * live chain's does), and a follower (`xone run --peer URL --batch 128`, the node's default recovery pool) first
 * imports the prebuilt chain, then follows the head for the rest of the run. Every minute it prints the follower's
 * VmRSS / RssAnon / RssFile / VmHWM (median of 5 s samples in that minute) and its lag behind the producer; at the end
 * one JSON report with the growth of VmRSS over the last 30 minutes (target <= 5 %; over the second half of a shorter
 * run). Datadirs on the repo's disk (.xone/bench/follow, or BENCH_FOLLOW_DIR).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { signTransaction } from '../chain/transaction/index.ts';
import { testingPrivateKey } from '../chain/transaction/testing.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { TRANSFERS_PER_BLOCK } from './exec/workloads.ts';
import { copyDatadir, FOLLOW_CHAIN_ID, prebuiltChain } from './follow/chain.ts';
import { procMemory, startNode, type ProcMemory } from './follow/process.ts';
import { batch, call } from './rpc/client.ts';
import { findmnt, loadAverage } from './store/env.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const minutes = Number(flag('--minutes') ?? 60);
const txPerBlock = Number(flag('--tx-per-block') ?? 400);
const prebuilt = Number(flag('--blocks') ?? 48);
if (!(minutes > 0)) throw new Error(`--minutes must be > 0, got ${flag('--minutes')}`);
if (!Number.isInteger(txPerBlock) || txPerBlock < 0 || txPerBlock > TRANSFERS_PER_BLOCK)
  throw new Error(`--tx-per-block must be 0..${TRANSFERS_PER_BLOCK}`);
const TARGET_GROWTH = 0.05;
const PERIOD_MS = 2_000;

const log = (m: string): void => void process.stderr.write(`soak:follow: ${m}\n`);
const root = process.env.BENCH_FOLLOW_DIR ?? join(import.meta.dirname, '..', '..', '.xone', 'bench', 'follow');
mkdirSync(root, { recursive: true });
const loadBefore = loadAverage();
const chain = await prebuiltChain(root, prebuilt, false, log);
const runDir = mkdtempSync(join(root, 'soak-'));

const head = async (url: string): Promise<number> => {
  const r = await call(url, 'eth_blockNumber', []);
  return typeof r.result === 'string' ? Number(r.result) : NaN;
};

/** Transfers from the prebuilt chain's 1,428 funded senders (each sent one per prebuilt block), to fresh recipients. */
function* transfers(): Generator<string> {
  const keys = Array.from({ length: TRANSFERS_PER_BLOCK }, (_, i) => testingPrivateKey(i));
  const encoder = new TextEncoder();
  for (let n = 0; ; n++) {
    const sender = n % keys.length;
    const to = keccak256(encoder.encode(`xone-soak-recipient-${n}`)).slice(12);
    const tx = signTransaction(
      {
        type: 2,
        chainId: FOLLOW_CHAIN_ID,
        nonce: BigInt(chain.blocks + Math.floor(n / keys.length)),
        maxFeePerGas: 1_000_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        gasLimit: 21_000n,
        to,
        value: 1n,
        data: new Uint8Array(0),
      },
      keys[sender] as Uint8Array,
    );
    yield bytesToHex(tx.raw);
  }
}

const producer = await startNode('producer', [
  '--genesis',
  chain.genesisFile,
  '--datadir',
  copyDatadir(chain, join(runDir, 'producer')),
  '--mine',
  '--signer',
  chain.signerKeyFile,
]);
const followerDir = mkdtempSync(join(runDir, 'follower-'));
let follower: Awaited<ReturnType<typeof startNode>> | undefined;
const minutesOut: { minute: number; memory: ProcMemory; followerHead: number; producerHead: number; submitted: number; refused: number }[] =
  [];
let submitted = 0;
let refused = 0;
let stop = false;
try {
  follower = await startNode(
    'follower',
    ['--genesis', chain.genesisFile, '--datadir', followerDir, '--peer', producer.url, '--batch', '128'],
    'Following peers',
  );
  const f = follower;
  const source = transfers();
  // One block's worth of transfers per period, in JSON-RPC batches of 100.
  const feeder = (async () => {
    while (!stop) {
      const started = performance.now();
      for (let sent = 0; sent < txPerBlock && !stop; sent += 100) {
        const raws = Array.from({ length: Math.min(100, txPerBlock - sent) }, () => [source.next().value as string]);
        try {
          const codes = await batch(producer.url, 'eth_sendRawTransaction', raws);
          submitted += codes.filter((c) => c === undefined).length;
          refused += codes.filter((c) => c !== undefined).length;
        } catch {
          refused += raws.length;
        }
      }
      await new Promise((r) => setTimeout(r, Math.max(0, PERIOD_MS - (performance.now() - started))));
    }
  })();
  const samples: { at: number; m: ProcMemory }[] = [];
  const t0 = performance.now();
  for (let minute = 1; minute <= minutes; minute++) {
    while (performance.now() - t0 < minute * 60_000) {
      const m = procMemory(f.pid);
      if (m === undefined) throw new Error(`follower exited; stderr: ${f.stderrTail()}`);
      samples.push({ at: performance.now(), m });
      await new Promise((r) => setTimeout(r, 5_000));
    }
    const inMinute = samples.filter((s) => s.at >= t0 + (minute - 1) * 60_000).map((s) => s.m);
    const med = (pick: (m: ProcMemory) => number): number =>
      inMinute.map(pick).sort((a, b) => a - b)[Math.floor(inMinute.length / 2)] ?? NaN;
    const memory: ProcMemory = {
      vmRss: med((m) => m.vmRss),
      rssAnon: med((m) => m.rssAnon),
      rssFile: med((m) => m.rssFile),
      vmHwm: med((m) => m.vmHwm),
    };
    const row = { minute, memory, followerHead: await head(f.url), producerHead: await head(producer.url), submitted, refused };
    minutesOut.push(row);
    log(
      `minute ${minute}: VmRSS ${memory.vmRss} MB (anon ${memory.rssAnon}, file ${memory.rssFile}, HWM ${memory.vmHwm}), ` +
        `head ${row.followerHead}/${row.producerHead}, ${submitted} txs submitted, ${refused} refused`,
    );
  }
  stop = true;
  await feeder;
} finally {
  stop = true;
  await follower?.stop();
  await producer.stop();
  rmSync(runDir, { recursive: true, force: true });
}

const window = Math.min(30, Math.floor(minutes / 2));
const last = minutesOut[minutesOut.length - 1];
const from = minutesOut[minutesOut.length - 1 - window];
const growth = last && from ? Math.round(((last.memory.vmRss - from.memory.vmRss) / from.memory.vmRss) * 1000) / 1000 : NaN;
const report = {
  bench: 'soak:follow',
  date: new Date().toISOString(),
  host: { cores: availableParallelism(), cpu: cpus()[0]?.model, node: process.version },
  filesystem: findmnt(root),
  loadAverage: { before: loadBefore, after: loadAverage() },
  minutes,
  txPerBlock,
  prebuiltBlocks: chain.blocks,
  follower: 'xone run --peer URL --batch 128 (default recovery pool)',
  minutesOut,
  growth: {
    windowMinutes: window,
    fromMb: from?.memory.vmRss,
    toMb: last?.memory.vmRss,
    fraction: growth,
    target: TARGET_GROWTH,
    met: growth <= TARGET_GROWTH,
  },
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
process.stderr.write(
  `soak:follow: ${minutes} min, VmRSS ${from?.memory.vmRss} -> ${last?.memory.vmRss} MB over the last ${window} min (growth ${(growth * 100).toFixed(1)} %, ` +
    `target <= ${TARGET_GROWTH * 100} %), HWM ${last?.memory.vmHwm} MB, head ${last?.followerHead}/${last?.producerHead}, ${submitted} txs ` +
    `(load ${loadBefore.join(' ')}, ${report.filesystem.fstype ?? '?'})\n`,
);
