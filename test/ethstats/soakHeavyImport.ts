/**
 * `npm run soak:ethstats [-- --blocks N]`: the ethstats reporter during a heavy import (issue #9). Builds full 30 M gas
 * transfer blocks with the node's executor and imports them through the real pipeline (recovery, execution, state
 * root, durable commits) on this thread — the worst case, as the chain thread would normally take this work — while
 * the reporter, on its own worker thread, answers a faithful server's Primus heartbeats every 250 ms (timeout 1 s).
 * Prints one JSON document and a one-line summary: heartbeats answered during build and import, the longest gap
 * between answers, heartbeat timeouts, abnormal closes, and the main thread's event-loop delay to show it was busy.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { benchConfig, buildChain } from '../../core/bench/exec/buildChain.ts';
import { importChain } from '../../core/bench/exec/importChain.ts';
import { transferWorkload } from '../../core/bench/exec/workloads.ts';
import { EthstatsReporter } from '../../core/ethstats/index.ts';
import { startEthstatsServer, type ServerEvent } from './support/ethstatsServer.ts';

const args = process.argv.slice(2);
const blocksArg = args.indexOf('--blocks');
const blocks = blocksArg >= 0 ? Number(args[blocksArg + 1]) : 6;
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const loadStart = load();

const server = await startEthstatsServer({ pingIntervalMs: 250, pongTimeoutMs: 1_000 });
const reporter = new EthstatsReporter(
  `soak:s3cret@${server.hostPort}`,
  {
    node: 'xone-ts/soak',
    port: 0,
    net: '2040',
    protocol: 'xone/1',
    api: 'No',
    os: process.platform,
    os_v: process.arch,
    client: '0.1.0',
    canUpdateHistory: true,
  },
  { history: () => [] },
  { reportIntervalMs: 1_000 },
);
await reporter.init();
for (let i = 0; i < 200 && !(await server.events()).some((e) => e.kind === 'ready'); i++) await new Promise((r) => setTimeout(r, 50));

// The main thread's own lateness probe (what the node's loop-lag probe sees): a 10 ms timer, max lateness kept.
let lastTick = performance.now();
let maxLateMs = 0;
const lates: number[] = [];
const probe = setInterval(() => {
  const now = performance.now();
  const late = now - lastTick - 10;
  lastTick = now;
  lates.push(late);
  if (late > maxLateMs) maxLateMs = late;
}, 10);
const t0 = (await server.events()).at(-1)?.t ?? 0;
const wall0 = performance.now();
const config = benchConfig(2040n);
const workload = transferWorkload(2040n, blocks);
const chain = await buildChain(config, workload.alloc, workload.blocks);
const buildSeconds = (performance.now() - wall0) / 1000;
const figures = await importChain(tmpdir(), config, workload.alloc, chain);
const busySeconds = (performance.now() - wall0) / 1000;
// Let the probe fire once more: if the work never yielded to the event loop, this tick carries the whole stall.
await new Promise((r) => setTimeout(r, 50));
clearInterval(probe);
lates.sort((a, b) => a - b);
await new Promise((r) => setTimeout(r, 500));

const events = await server.events();
const window = events.filter((e) => e.t >= t0 && e.t <= t0 + busySeconds * 1000 + 500);
const pongTimes = window.filter((e) => e.kind === 'primus-pong').map((e) => e.t);
const gaps = pongTimes.slice(1).map((t, i) => t - pongTimes[i]);
const count = (list: ServerEvent[], kind: ServerEvent['kind']) => list.filter((e) => e.kind === kind).length;
await reporter.close();
const final = await server.events();
await server.stop();

const result = {
  soak: 'ethstats-heavy-import',
  blocks: figures.blocks,
  txs: figures.txs,
  buildSeconds: Number(buildSeconds.toFixed(2)),
  importSeconds: figures.seconds,
  importTxPerSec: figures.txPerSec,
  mainThreadLoopDelayMaxMs: Number(maxLateMs.toFixed(1)),
  mainThreadLoopDelayP99Ms: Number((lates[Math.ceil(lates.length * 0.99) - 1] ?? 0).toFixed(1)),
  heartbeatsAnswered: pongTimes.length,
  heartbeatsExpected: Math.floor((busySeconds * 1000) / 250),
  longestGapBetweenAnswersMs: gaps.length ? Math.max(...gaps) : null,
  heartbeatTimeouts: count(final, 'heartbeat-timeout'),
  connections: count(final, 'connect'),
  closeCodes: final.filter((e) => e.kind === 'close').map((e) => (e.payload as { code: number }).code),
  host: {
    cores: availableParallelism(),
    loadStart,
    loadEnd: load(),
    filesystem: execFileSync('findmnt', ['-n', '-o', 'TARGET,SOURCE,FSTYPE', '-T', tmpdir()], { encoding: 'utf8' }).trim(),
  },
};
console.log(JSON.stringify(result, null, 2));
console.error(
  `soak:ethstats ${result.blocks} blocks/${result.txs} txs in ${(result.buildSeconds + result.importSeconds).toFixed(1)} s busy (main loop delay max ${result.mainThreadLoopDelayMaxMs} ms): ` +
    `${result.heartbeatsAnswered}/${result.heartbeatsExpected} heartbeats answered, longest gap ${result.longestGapBetweenAnswersMs} ms, ` +
    `${result.heartbeatTimeouts} timeouts, close codes ${result.closeCodes.join(',')}`,
);
process.exitCode = result.heartbeatTimeouts === 0 && result.connections === 1 && result.closeCodes.join(',') === '1001' ? 0 : 1;
