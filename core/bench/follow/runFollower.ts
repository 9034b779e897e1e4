/**
 * One measured follow: starts `xone run --peer URL` (chain thread, durable group commit, batch 128) on a fresh datadir,
 * probes it while it imports the producer's prebuilt chain, and returns the figures. The clock starts when the
 * follower logs `Following peers` and stops at the first eth_blockNumber answer at or past the chain's head.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize } from '../store/stats.ts';
import { cpuMs } from '../rpc/processCpu.ts';
import type { PrebuiltChain } from './chain.ts';
import { startNode } from './process.ts';
import { smapsClasses, type SmapsClasses } from './smapsClasses.ts';
import { threadCpuDelta, threadCpuSnapshot, threadNamesFromHeapDiag } from './threadCpu.ts';
import {
  highestBucket,
  histogramDelta,
  histogramQuantile,
  phaseMemory,
  scrapeMetrics,
  startMemorySampler,
  startRpcProbe,
  type PhaseMemory,
  type Sample,
} from './probes.ts';

/** How long the follower is watched at the head after the import (its idle memory: the last half of it counts). */
const IDLE_MS = 12_000;

/** Figures of one follow run. */
export interface FollowFigures {
  recoveryWorkers: number | 'default';
  reachedHead: boolean;
  seconds: number;
  txPerSec: number;
  blocksPerSec: number;
  mgasPerSec: number;
  /** The follower process's CPU (user + system, all threads) during the import, and transfers per CPU-second. */
  cpu: { seconds: number; txPerCpuSec: number };
  loop: {
    /** Longest lateness of the follower's 50 ms loop probe during the import, ms (see `longestStallSource`). */
    longestStallMs: number;
    longestStallSource: 'stall log line' | 'histogram bucket bound';
    p99LagMs: number;
    p50LagMs: number;
    probeWakes: number;
    stallLines: number;
  };
  rssMb: { steady: number; max: number; samples: number };
  /**
   * /proc/PID/status per phase (MB): `start` when following begins, `importing` over the second half of the import
   * (medians; `maxVmRss` over all of it), `idle` over the last half of IDLE_MS at the head.
   */
  memory: { start: PhaseMemory; importing: PhaseMemory & { maxVmRssWholeImport: number }; idle: PhaseMemory };
  rpc: Record<'eth_blockNumber' | 'eth_getBalance', { n: number; p50: number; p99: number; max: number; errors: number }>;
  counters: { importBlocks: number; importTxs: number; importGas: number };
  /**
   * The import window on CLOCK_MONOTONIC in µs (the clock of a .cpuprofile's timestamps: `profileSummary.ts --window`
   * cuts a `--cpu-prof` profile to it).
   */
  window: { monotonicUs: [number, number] };
  /** CPU of each of the follower's threads over the import (schedstat), named by their `XONE_HEAP_DIAG` lines. */
  threads: ReturnType<typeof threadCpuDelta>;
  /** RSS by kind of mapping (/proc/PID/smaps) at the end of the import and at the end of the idle phase. */
  smaps: { importEnd?: SmapsClasses; idle?: SmapsClasses };
}

/** performance.now() time `at` on CLOCK_MONOTONIC, µs. */
const monotonicUs = (at: number): number => Math.round(Number(process.hrtime.bigint() / 1000n) - (performance.now() - at) * 1000);

const r1 = (x: number): number => Math.round(x * 10) / 10;

function latency(samples: Sample[], method: Sample['method']): FollowFigures['rpc']['eth_blockNumber'] {
  const mine = samples.filter((s) => s.method === method);
  const s = summarize(mine.filter((x) => x.ok).map((x) => x.ms));
  return { n: s.n, p50: s.p50, p99: s.p99, max: s.max, errors: mine.filter((x) => !x.ok).length };
}

/** Follows `producerUrl` into a new datadir under `root` until `chain.blocks`; removes the datadir afterwards. */
export async function runFollower(
  root: string,
  chain: PrebuiltChain,
  producerUrl: string,
  recoveryWorkers: number | undefined,
  timeoutMs: number,
  nodeFlags: string[] = [],
  extraArgs: string[] = [],
  otherLine?: (line: string) => void,
): Promise<FollowFigures> {
  const datadir = mkdtempSync(join(root, 'follower-'));
  const args = ['--genesis', chain.genesisFile, '--datadir', datadir, '--peer', producerUrl, '--batch', '128'];
  if (recoveryWorkers !== undefined) args.push('--recovery-workers', String(recoveryWorkers));
  args.push(...extraArgs);
  // Each thread's heap report carries its tid: the thread CPU split below names threads by it.
  const heapDiagFile = process.env.XONE_HEAP_DIAG_FILE ?? join(datadir, 'heap-diag.jsonl');
  const env = { ...process.env, XONE_HEAP_DIAG: process.env.XONE_HEAP_DIAG ?? '1000', XONE_HEAP_DIAG_FILE: heapDiagFile };
  const node = await startNode('follower', args, 'Following peers', 120_000, nodeFlags, otherLine, env);
  try {
    const t0 = (await node.waitForLine('Following peers', 10_000)).at;
    const m0 = await scrapeMetrics(node.url);
    const cpu0 = cpuMs([node.pid]);
    const threads0 = threadCpuSnapshot(node.pid);
    let threads1 = threads0;
    let smapsImportEnd: SmapsClasses | undefined;
    let cpu1 = NaN;
    let t1 = NaN;
    let done: () => void = () => {};
    const reached = new Promise<void>((resolve) => (done = resolve));
    const rss = startMemorySampler(node, 200);
    const probe = startRpcProbe(node.url, chain.probeAddress, 5, (head, at) => {
      if (head >= chain.blocks && Number.isNaN(t1)) {
        t1 = at;
        cpu1 = cpuMs([node.pid]);
        threads1 = threadCpuSnapshot(node.pid);
        smapsImportEnd = smapsClasses(node.pid);
        done();
      }
    });
    const timer = setTimeout(done, timeoutMs);
    let exited: string | undefined;
    node.child.once('exit', (code, signal) => {
      exited = `follower exited (code ${code}, signal ${signal}) before reaching the head; stderr: ${node.stderrTail()}`;
      done();
    });
    await reached;
    clearTimeout(timer);
    if (exited) {
      await probe.stop();
      rss.stop();
      throw new Error(exited);
    }
    const samples = (await probe.stop()).filter((s) => s.at >= t0 && s.at <= (Number.isNaN(t1) ? Infinity : t1));
    const idleFrom = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    rss.stop();
    const smapsIdle = smapsClasses(node.pid);
    const names = existsSync(heapDiagFile)
      ? threadNamesFromHeapDiag(readFileSync(heapDiagFile, 'utf8'), node.pid)
      : new Map<number, string>();
    const m1 = await scrapeMetrics(node.url);
    const end = Number.isNaN(t1) ? performance.now() : t1;
    const seconds = (end - t0) / 1000;
    const lag = histogramDelta('xone_loop_lag_seconds', m0, m1);
    const stalls = node.lines.filter((l) => l.msg.startsWith('event loop stall') && l.at >= t0 && l.at <= end + 200);
    const loggedMax = Math.max(0, ...stalls.map((l) => Number(l.lag_ms)));
    const mid = t0 + (end - t0) / 2;
    const steady = rss.samples.filter((s) => s.at >= mid && s.at <= end).map((s) => s.vmRss);
    const importing = phaseMemory(rss.samples, mid, end);
    return {
      recoveryWorkers: recoveryWorkers ?? 'default',
      reachedHead: !Number.isNaN(t1),
      seconds: Math.round(seconds * 1000) / 1000,
      txPerSec: Math.round(chain.txs / seconds),
      blocksPerSec: r1(chain.blocks / seconds),
      mgasPerSec: r1(Number(chain.gas) / 1e6 / seconds),
      cpu: { seconds: r1((cpu1 - cpu0) / 1000), txPerCpuSec: Math.round(chain.txs / ((cpu1 - cpu0) / 1000)) },
      loop: {
        longestStallMs: stalls.length > 0 ? loggedMax : highestBucket(lag) * 1000,
        longestStallSource: stalls.length > 0 ? 'stall log line' : 'histogram bucket bound',
        p99LagMs: r1(histogramQuantile(0.99, lag) * 1000),
        p50LagMs: r1(histogramQuantile(0.5, lag) * 1000),
        probeWakes: lag[lag.length - 1]?.count ?? 0,
        stallLines: stalls.length,
      },
      rssMb: {
        steady: r1(summarize(steady).p50),
        max: r1(Math.max(0, ...rss.samples.filter((s) => s.at <= end).map((s) => s.vmRss))),
        samples: steady.length,
      },
      memory: {
        start: phaseMemory(rss.samples, t0, t0 + 1_000),
        importing: { ...importing, maxVmRssWholeImport: phaseMemory(rss.samples, t0, end).maxVmRss },
        idle: phaseMemory(rss.samples, idleFrom + IDLE_MS / 2, idleFrom + IDLE_MS),
      },
      rpc: { eth_blockNumber: latency(samples, 'eth_blockNumber'), eth_getBalance: latency(samples, 'eth_getBalance') },
      counters: {
        importBlocks: m1.get('xone_import_blocks_total') ?? 0,
        importTxs: m1.get('xone_import_txs_total') ?? 0,
        importGas: m1.get('xone_import_gas_total') ?? 0,
      },
      window: { monotonicUs: [monotonicUs(t0), monotonicUs(end)] },
      threads: threadCpuDelta(node.pid, threads0, threads1, cpu1 - cpu0, names),
      smaps: { importEnd: smapsImportEnd, idle: smapsIdle },
    };
  } finally {
    if (process.env.BENCH_FOLLOW_LOG)
      writeFileSync(process.env.BENCH_FOLLOW_LOG, node.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await node.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
}
