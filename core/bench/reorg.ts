/**
 * `npm run bench:reorg` (issue #16): reorgs of 1, 8 and 64 blocks on a Clique chain of transfer blocks.
 *
 * 1. Chain-thread cost, in-process (`ChainService`, real datadir, real fsyncs): import the trunk, then the branch
 *    (core/bench/reorg/chains.ts: d blocks dropped, 2d + 1 applied); the branch's blocks before the last are stored
 *    as side blocks (executed on their branch), its last block triggers the reorg (unwind state through the change
 *    sets, re-apply the branch, one durable commit). Reported: the reorg per block it touches, against a plain import
 *    per block of the same chain in the same run (ratio).
 * 2. A real follower process (`xone run --peer`), synced to the trunk; the peer then serves the branch and announces
 *    it (the heal). Reported: heal-to-convergence time (until the node answers `latest` with the branch's tip) and
 *    the longest main-loop stall of the node during it (target: 50 ms, as for import).
 *
 * JSON on stdout, one summary line on stderr. Options: `--quick` (depths 1 and 8 only), `--depths 1,8,64`, `--txs N` (transfers per
 * block, default 200). Datadirs on the repo's disk (.xone/bench/reorg): /tmp may be tmpfs, where fsync is free.
 * XONE_BENCH_NODE_FLAGS adds node flags to the follower process (e.g. `--cpu-prof --cpu-prof-dir=DIR` for a profile of
 * its main thread during the reorg).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChainService } from '../chainService/chainService.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { createSyncRoutes } from '../sync/serving/routes.ts';
import { storeServingSource, type StoreServingSource } from '../sync/serving/storeServingSource.ts';
import type { SyncHead } from '../sync/wire.ts';
import { findmnt, loadAverage } from './store/env.ts';
import { highestBucket, histogramDelta, scrapeMetrics } from './follow/probes.ts';
import { startNode } from './follow/process.ts';
import { buildReorgChains, type ReorgChains } from './reorg/chains.ts';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const txsIndex = args.indexOf('--txs');
const txsPerBlock = txsIndex >= 0 ? Number(args[txsIndex + 1]) : 200;
const depthsIndex = args.indexOf('--depths');
const depths = depthsIndex >= 0 ? args[depthsIndex + 1].split(',').map(Number) : quick ? [1, 8] : [1, 8, 64];
const TRUNK = Math.max(...depths) + 6;
const TARGET_STALL_MS = 50;
// Node flags for the follower process, e.g. XONE_BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile it.
const nodeFlags = (process.env.XONE_BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
// The follower logs every main-loop wake later than this (the exact lag, where the histogram has only 25/50/100 ms buckets).
process.env.XONE_LOOP_STALL_MS ??= '10';
const STALL_LOG_MS = Number(process.env.XONE_LOOP_STALL_MS);
const log = (m: string): void => void process.stderr.write(`bench:reorg: ${m}\n`);
const r1 = (x: number): number => Math.round(x * 10) / 10;
const root = join(import.meta.dirname, '..', '..', '.xone', 'bench', 'reorg');
mkdirSync(root, { recursive: true });
const work = mkdtempSync(join(root, 'run-'));

/** Chain-thread cost of one reorg of depth `d`, in-process. */
async function chainThreadCost(chains: ReorgChains, d: number) {
  const service = ChainService.open({ datadir: mkdtempSync(join(work, 'c-')), genesis: chains.genesis, batch: 0 });
  try {
    const t0 = performance.now();
    await service.importBlocks(chains.trunk);
    const importPerBlock = (performance.now() - t0) / chains.trunk.length;
    const branch = chains.branches.get(d) as Uint8Array[];
    const t1 = performance.now();
    await service.importBlocks(branch.slice(0, -1));
    const sideMs = performance.now() - t1;
    const t2 = performance.now();
    const updates = await service.importBlocks(branch.slice(-1));
    const reorgMs = performance.now() - t2;
    if (updates[0]?.reorg?.dropped.length !== d) throw new Error(`depth ${d}: expected a reorg dropping ${d} blocks`);
    return {
      importPerBlockMs: r1(importPerBlock),
      sideBlockMs: r1(sideMs / Math.max(1, branch.length - 1)),
      reorgMs: r1(reorgMs),
      // The commit unwinds d blocks and applies the branch's 2d + 1: the cost per block it touches.
      blocksTouched: d + branch.length,
      reorgPerBlockMs: r1(reorgMs / (d + branch.length)),
      reorgPerBlockVsImport: r1(reorgMs / (d + branch.length) / importPerBlock),
    };
  } finally {
    service.close();
  }
}

/** A peer whose served chain can be switched; announcing the new head is the heal. */
async function switchablePeer(sources: { trunk: StoreServingSource; branch: StoreServingSource }) {
  let current = sources.trunk;
  const listeners = new Set<(h: SyncHead) => void>();
  const app = createSyncRoutes({
    source: {
      status: () => current.status(),
      blockRlp: (n) => current.blockRlp(n),
      snapshot: (read) => read(),
      subscribeHeads: (cb) => {
        listeners.add(cb);
        return () => listeners.delete(cb);
      },
      submitTx: async () => new Uint8Array(32),
    },
  });
  const { Hono } = await import('hono');
  const outer = new Hono();
  outer.route('/xone/v1', app);
  const server = serve({ fetch: outer.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    heal(): void {
      current = sources.branch;
      const head = current.status().head;
      for (const cb of listeners) cb(head);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Heal-to-convergence and the node's longest loop stall for depth `d`, with a real follower process. */
async function nodeReorg(chains: ReorgChains, genesisFile: string, d: number) {
  const trunk = ChainService.open({ datadir: mkdtempSync(join(work, 'p-')), genesis: chains.genesis, batch: 0 });
  const branch = ChainService.open({ datadir: mkdtempSync(join(work, 'p-')), genesis: chains.genesis, batch: 0 });
  await trunk.importBlocks(chains.trunk);
  const blocks = chains.branches.get(d) as Uint8Array[];
  await branch.importBlocks([...chains.trunk.slice(0, chains.trunk.length - d), ...blocks]);
  const submitTx = async (): Promise<Uint8Array> => new Uint8Array(32);
  const id = BigInt(chains.genesis.config.chainId);
  const peer = await switchablePeer({
    trunk: storeServingSource({ reader: trunk.store, chainId: id, submitTx }),
    branch: storeServingSource({ reader: branch.store, chainId: id, submitTx }),
  });
  const node = await startNode(
    `follower-${d}`,
    ['--genesis', genesisFile, '--datadir', mkdtempSync(join(work, 'n-')), '--peer', peer.url, '--recovery-workers', '0'],
    'node started',
    120_000,
    nodeFlags,
  );
  const latest = async (): Promise<string> => {
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
    });
    return ((await res.json()) as { result: { hash: string } }).result.hash;
  };
  try {
    const trunkTip = bytesToHex(trunk.head().hash);
    for (let until = Date.now() + 120_000; (await latest()) !== trunkTip;) {
      if (Date.now() > until) throw new Error(`depth ${d}: the node did not reach the trunk's tip`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Quiet first: the trunk's import is over, so what follows is the reorg alone.
    await new Promise((r) => setTimeout(r, 1_000));
    const m0 = await scrapeMetrics(node.url);
    const tip = bytesToHex(branch.head().hash);
    const t0 = performance.now();
    peer.heal();
    while ((await latest()) !== tip) {
      if (performance.now() - t0 > 120_000) throw new Error(`depth ${d}: no convergence in 120 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const convergedMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 300));
    const m1 = await scrapeMetrics(node.url);
    const stalls = node.lines.filter((l) => l.msg.startsWith('event loop stall') && l.at >= t0);
    const logged = Math.max(0, ...stalls.map((l) => Number(l.lag_ms)));
    const lag = histogramDelta('xone_loop_lag_seconds', m0, m1);
    return {
      healToConvergenceMs: Math.round(convergedMs),
      longestStallMs: stalls.length > 0 ? logged : Math.min(STALL_LOG_MS, highestBucket(lag) * 1000),
      longestStallSource: stalls.length > 0 ? 'stall log line' : `no wake later than ${STALL_LOG_MS} ms (histogram)`,
      // The late wakes, worst first, with when they happened (ms after the heal).
      stalls: stalls
        .map((l) => ({ lagMs: Number(l.lag_ms), atMs: Math.round(l.at - t0) }))
        .sort((x, y) => y.lagMs - x.lagMs)
        .slice(0, 8),
      reorgLogged: node.lines.some((l) => l.msg === 'Reorg' && l.at >= t0),
    };
  } finally {
    await node.stop();
    await peer.close();
    trunk.close();
    branch.close();
  }
}

try {
  const loadBefore = loadAverage();
  log(`building a ${TRUNK}-block trunk and branches of depth ${depths.join(', ')} (${txsPerBlock} transfers per block)`);
  const chains = await buildReorgChains(work, TRUNK, depths, txsPerBlock);
  const genesisFile = join(work, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(chains.genesisJson));
  const results = [];
  for (const d of depths) {
    log(`depth ${d}: chain thread`);
    const chain = await chainThreadCost(chains, d);
    log(`depth ${d}: follower process`);
    const node = await nodeReorg(chains, genesisFile, d);
    results.push({ depth: d, ...node, chainThread: chain });
  }
  const deepest = results[results.length - 1];
  // The target is the 64-block reorg's (issue #16); a run without depth 64 judges its deepest one.
  const judged = results.find((r) => r.depth === 64) ?? deepest;
  const met = judged.longestStallMs <= TARGET_STALL_MS;
  const out = {
    bench: 'reorg',
    txsPerBlock,
    trunkBlocks: TRUNK,
    results,
    target: { depth: judged.depth, longestStallMs: TARGET_STALL_MS, measuredMs: judged.longestStallMs, met },
    env: { loadBefore, loadAfter: loadAverage(), fs: findmnt(work), node: process.version },
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  log(
    results
      .map(
        (r) =>
          `depth ${r.depth}: heal→converged ${r.healToConvergenceMs} ms, reorg ${r.chainThread.reorgPerBlockMs} ms/block (${r.chainThread.reorgPerBlockVsImport}x import), stall ${r.longestStallMs} ms`,
      )
      .join('; ') +
      `; target: longest stall during a ${judged.depth}-block reorg ${judged.longestStallMs} ms <= ${TARGET_STALL_MS} ms: ${met ? 'met' : 'NOT met'} (load ${out.env.loadBefore[0]} / ${out.env.loadAfter[0]})`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
