/**
 * `npm run bench:follow` (issue #5): a real producer process (`xone run --mine`) serves a prebuilt chain of full
 * transfer blocks (30 M gas, 1,428 transfers from 1,428 senders each) and a real follower process (`xone run --peer
 * URL`: chain thread, durable group commit, batch 128) imports it over HTTP. Reports tx/s, blocks/s, the follower's
 * longest loop stall and p99 loop lag (its `xone_loop_lag_seconds` histogram and `event loop stall` log lines), its
 * RSS at steady state (/proc/PID/status), and p50/p99 of eth_blockNumber and eth_getBalance sent to it while it
 * imports; compares with the issue's anchors as ratios. JSON on stdout, one summary line on stderr.
 *
 * Options: `--quick` (8 blocks instead of 48), `--blocks N` (at most 56: full blocks raise the base fee 12.5% each,
 * past the workload's 1,000 gwei fee cap at block 59), `--recovery-workers A[,B...]` (one follower run per value,
 * same producer; default: the node's own default), `--rpc-workers N` (the follower's `--rpc.workers N`, the most
 * RPC pool threads; a follower keeps none warm, so the cheap-call probe starts none), `--batch N` (the follower's
 * group-commit batch, 1-128 blocks; default 128), `--rebuild` (ignore the cached chain), `--cpu-prof DIR` (the
 * follower runs with `--cpu-prof`: one .cpuprofile per thread in DIR, written when it stops), `--trace-gc FILE` (the
 * follower runs with V8's `--trace-gc`: one line per GC of any of its threads, each with the isolate's address and
 * the ms since that isolate started, written to FILE), `--follower-node-flags "F..."` (more node/V8 flags for the
 * follower process only, space-separated: an A/B of a V8 setting against the same producer). Datadirs live on the repo's
 * disk (.xone/bench/follow, or BENCH_FOLLOW_DIR): /tmp may be tmpfs, where fsync is free.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { findmnt, loadAverage } from './store/env.ts';
import { copyDatadir, prebuiltChain } from './follow/chain.ts';
import { startNode } from './follow/process.ts';
import { runFollower, type FollowFigures } from './follow/runFollower.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
const blocks = Number(flag('--blocks') ?? (quick ? 8 : 48));
const cpuProfDir = flag('--cpu-prof');
const traceGcFile = flag('--trace-gc');
const nodeFlags = [
  ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : []),
  ...(traceGcFile ? ['--trace-gc'] : []),
  ...(flag('--follower-node-flags')?.split(' ').filter(Boolean) ?? []),
];
const gcLines: string[] = [];
const workerRuns: (number | undefined)[] = flag('--recovery-workers')?.split(',').map(Number) ?? [undefined];
const rpcWorkers = flag('--rpc-workers');
if (rpcWorkers !== undefined && !(Number.isInteger(Number(rpcWorkers)) && Number(rpcWorkers) >= 1))
  throw new Error(`--rpc-workers takes an integer >= 1, got ${rpcWorkers}`);
const followerBatch = flag('--batch');
if (followerBatch !== undefined && !(Number.isInteger(Number(followerBatch)) && Number(followerBatch) >= 1 && Number(followerBatch) <= 128))
  throw new Error(`--batch takes an integer 1..128, got ${followerBatch}`);
const followerArgs = [
  ...(rpcWorkers !== undefined ? ['--rpc.workers', rpcWorkers] : []),
  ...(followerBatch !== undefined ? ['--batch', followerBatch] : []),
];
if (!Number.isInteger(blocks) || blocks < 1 || blocks > 56) throw new Error(`--blocks must be an integer 1..56, got ${flag('--blocks')}`);
if (workerRuns.some((w) => w !== undefined && (!Number.isInteger(w) || w < 0)))
  throw new Error(`--recovery-workers takes integers >= 0, got ${flag('--recovery-workers')}`);

/** The anchors (seeds) and targets; peers are quoted, not run here. */
const ANCHORS = { gethXdcTxPerSec: 12_521, pythonTxPerSec: [1_833, 2_057], pythonLongestStallMs: 257, rustFollowerRssMb: [89, 96] };
const TARGETS = { txPerSec: 12_521, longestStallMs: 50, rpcP99Ms: 10, rssMb: 150, idleRssMb: 100 };

const log = (m: string): void => void process.stderr.write(`bench:follow: ${m}\n`);
const root = process.env.BENCH_FOLLOW_DIR ?? join(import.meta.dirname, '..', '..', '.xone', 'bench', 'follow');
mkdirSync(root, { recursive: true });
const loadBefore = loadAverage();
const chain = await prebuiltChain(root, blocks, args.includes('--rebuild'), log);
log(`${chain.cached ? 'cached' : 'built'} chain: ${chain.blocks} blocks, ${chain.txs} txs`);

const runDir = mkdtempSync(join(root, 'run-'));
const producer = await startNode('producer', [
  '--genesis',
  chain.genesisFile,
  '--datadir',
  copyDatadir(chain, join(runDir, 'producer')),
  '--mine',
  '--signer',
  chain.signerKeyFile,
]);
const runs: FollowFigures[] = [];
try {
  for (const workers of workerRuns) {
    log(`following ${producer.url} (recovery workers: ${workers ?? 'default'})`);
    const figures = await runFollower(
      runDir,
      chain,
      producer.url,
      workers,
      30 * 60_000,
      nodeFlags,
      followerArgs,
      traceGcFile ? (l) => gcLines.push(l) : undefined,
    );
    runs.push(figures);
    log(`${figures.txPerSec} tx/s, longest stall ${figures.loop.longestStallMs} ms, RSS ${figures.rssMb.steady} MB`);
  }
} finally {
  if (traceGcFile) writeFileSync(traceGcFile, gcLines.join('\n') + '\n');
  await producer.stop();
  rmSync(runDir, { recursive: true, force: true });
}

const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;
const verdict = (f: FollowFigures) => ({
  txPerSec: f.txPerSec >= TARGETS.txPerSec,
  longestStall: f.loop.longestStallMs <= TARGETS.longestStallMs,
  rpcP99: Math.max(f.rpc.eth_blockNumber.p99, f.rpc.eth_getBalance.p99) <= TARGETS.rpcP99Ms,
  rss: f.memory.importing.vmRss <= TARGETS.rssMb,
  idleRss: f.memory.idle.vmRss <= TARGETS.idleRssMb,
});
let commit = '';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  // Not a checkout.
}
const report = {
  bench: 'follow',
  date: new Date().toISOString(),
  commit,
  host: { cores: availableParallelism(), cpu: cpus()[0]?.model, node: process.version },
  filesystem: findmnt(root),
  loadAverage: { before: loadBefore, after: loadAverage() },
  chain: {
    blocks: chain.blocks,
    txs: chain.txs,
    txsPerBlock: chain.txs / chain.blocks,
    gas: chain.gas,
    cached: chain.cached,
    buildSeconds: chain.buildSeconds,
  },
  follower: `xone run --peer URL --batch 128${followerArgs.length ? ' ' + followerArgs.join(' ') : ''} (chain thread, durable group commit, SQLite WAL synchronous=FULL)`,
  rpcPoolWarmThreads: 0, // a follower starts them with its first expensive call
  runs: runs.map((f) => ({
    ...f,
    ratios: {
      txPerSecVsGethXdc: ratio(f.txPerSec, ANCHORS.gethXdcTxPerSec),
      txPerSecVsPython: ANCHORS.pythonTxPerSec.map((p) => ratio(f.txPerSec, p)),
      longestStallVsPython: ratio(f.loop.longestStallMs, ANCHORS.pythonLongestStallMs),
      rssVsRust: ANCHORS.rustFollowerRssMb.map((p) => ratio(f.rssMb.steady, p)),
    },
    meetsTargets: verdict(f),
  })),
  anchors: ANCHORS,
  targets: TARGETS,
};
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
const yesNo = (v: boolean): string => (v ? 'met' : 'not met');
const threadSplit = (f: FollowFigures): string =>
  [
    ...f.threads.threads.map((t) => `${t.name} ${t.cpuMs} (waited ${t.waitMs})`),
    `node-internal ${f.threads.nodeInternalMs}`,
    `exited ${f.threads.exitedMs}`,
  ].join(', ') + ' ms';
for (const f of runs) {
  const v = verdict(f);
  const targets =
    `targets: >= ${TARGETS.txPerSec} tx/s ${yesNo(v.txPerSec)}, stall <= ${TARGETS.longestStallMs} ms ${yesNo(v.longestStall)}, ` +
    `RPC p99 <= ${TARGETS.rpcP99Ms} ms ${yesNo(v.rpcP99)}, RSS <= ${TARGETS.rssMb} MB ${yesNo(v.rss)}, idle <= ${TARGETS.idleRssMb} MB ${yesNo(v.idleRss)}`;
  const rpc = `eth_blockNumber p50/p99 ${f.rpc.eth_blockNumber.p50}/${f.rpc.eth_blockNumber.p99} ms, eth_getBalance ${f.rpc.eth_getBalance.p50}/${f.rpc.eth_getBalance.p99} ms`;
  process.stderr.write(
    `follow (recovery workers ${f.recoveryWorkers}, RPC pool warm threads ${report.rpcPoolWarmThreads}): ${f.txPerSec} tx/s, ${f.blocksPerSec} blocks/s (x${ratio(f.txPerSec, ANCHORS.gethXdcTxPerSec)} geth-XDC), ` +
      `${f.cpu.txPerCpuSec} tx per CPU-s, longest stall ${f.loop.longestStallMs} ms, p99 lag ${f.loop.p99LagMs} ms, RSS importing ${f.memory.importing.vmRss} MB ` +
      `(anon ${f.memory.importing.rssAnon}, file ${f.memory.importing.rssFile}, max ${f.memory.importing.maxVmRssWholeImport}), idle ${f.memory.idle.vmRss} MB, ` +
      `HWM ${f.memory.idle.vmHwm} MB, ${rpc}; CPU by thread ${threadSplit(f)} (load ${loadBefore.join(' ')}, ${report.filesystem.fstype ?? '?'}); ${targets}\n`,
  );
}
