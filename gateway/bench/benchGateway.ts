/**
 * `npm run bench:gateway`: the gateway's phases against one upstream (the core's dev node, `xone run --dev`) and one
 * redis-server, each printed as part of one JSON document on stdout and one summary line per phase on stderr.
 * - `proxy` (proxyBench.ts): direct core vs gateway (uncached, cached) vs nginx, added latency, the limiter's decision.
 * - `sharedLimit` (sharedLimitBench.ts): two gateway instances, one bucket, clients above the limit on a host loaded
 *   to ~10 by busy loops: admitted vs what the bucket allows (issue #17's +-2 % target).
 * `--only <phase>` runs one; `--quick`: shorter windows. `--cpu-prof DIR`, `--baseline DIR`: see proxyBench.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRedis, waitReady } from '../adapters/node/redisClient.ts';
import { startGatewayProcess, waitHttp } from './gatewayProcess.ts';
import { benchProxy } from './proxyBench.ts';
import { startCore, startRedis } from './services.ts';
import { benchSharedLimit, type CallLogs, type SharedLimitRun } from './sharedLimitBench.ts';

const argValue = (flag: string) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const PHASES = ['proxy', 'sharedLimit'] as const;
type Phase = (typeof PHASES)[number];
const only = argValue('--only');
if (only !== undefined && !PHASES.includes(only as Phase)) throw new Error(`--only: expected one of ${PHASES.join(', ')}, got ${only}`);
const phases = new Set<Phase>(only ? [only as Phase] : PHASES);
const quick = process.argv.includes('--quick');
const dir = mkdtempSync(join(tmpdir(), 'xone-gw-bench-'));
const stops: (() => Promise<void> | void)[] = [];
const adminToken = 'bench-admin-token-0123456789';

/**
 * The shared-limit runs: the two cases, each above the limit (4x the rate at each instance, 8x in all), with a
 * fresh bucket per run, and one run of each tier at 0.8x the rate (Redis round trips per call of a lease that is not
 * drawn). A key of 50/s burst 50 is the "748 admitted in 8 s against 450 allowed"; the anonymous tier 20/40.
 */
const SHARED_LIMIT_RUNS: SharedLimitRun[] = [
  { kind: 'key', ratePerSec: 50, burst: 50, offeredPerInstance: 100 },
  { kind: 'anonymous', ratePerSec: 20, burst: 40, offeredPerInstance: 40 },
  { kind: 'key', ratePerSec: 50, burst: 50, offeredPerInstance: 100 },
  { kind: 'anonymous', ratePerSec: 20, burst: 40, offeredPerInstance: 40 },
  { kind: 'anonymous', ratePerSec: 20, burst: 40, offeredPerInstance: 8 },
  { kind: 'key', ratePerSec: 50, burst: 50, offeredPerInstance: 20 },
];

const report: Record<string, unknown> = {
  bench: 'gateway',
  date: new Date().toISOString(),
  commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
  filesystem: execFileSync('findmnt', ['-T', dir, '-n', '-o', 'SOURCE,FSTYPE'], { encoding: 'utf8' }).trim(),
  phases: [...phases],
};
const summaries: string[] = [];
try {
  const redis = await startRedis();
  stops.push(() => redis.stop());
  // The core's dev node (the same core the gateway fronts in production), one process like the gateway.
  const core = await startCore();
  stops.push(() => core.stop());
  await waitHttp(core.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }));

  if (phases.has('proxy')) {
    const proxy = await benchProxy({
      dir,
      quick,
      profDir: argValue('--cpu-prof'),
      redisUrl: redis.url,
      coreUrl: core.url,
      corePid: core.pid,
      adminToken,
      stops,
    });
    // The proxy phase's report stays at the top level (the shape earlier sessions' figures were read from).
    Object.assign(report, proxy.report);
    summaries.push(proxy.summary);
  }
  if (phases.has('sharedLimit')) {
    // Production deadlines (backendTimeoutMs 50 ms, the default): item 4's leak was late decisions on a busy host.
    const logs: CallLogs = [[], []];
    const gateways = await Promise.all(
      ['limitA', 'limitB'].map((name, i) =>
        startGatewayProcess({
          root: resolve('.'),
          name,
          dir,
          coreUrl: core.url,
          redisUrl: redis.url,
          adminToken,
          // Every call logged: the admission times come from the gateways' own log lines.
          config: { rateLimit: { backend: 'redis' }, log: { successSampleRate: 1 } },
          onLogLine: (line) => logs[i as 0 | 1].push(line),
        }),
      ),
    );
    for (const g of gateways) stops.push(() => g.stop());
    const client = createRedis(redis.url, { commandTimeoutMs: 5_000 });
    await waitReady(client);
    try {
      const shared = await benchSharedLimit({
        gateways,
        logs,
        adminToken,
        redis: client,
        runs: quick ? SHARED_LIMIT_RUNS.slice(0, 2) : SHARED_LIMIT_RUNS,
        seconds: quick ? 4 : 8,
        targetLoad: 10,
        rampMs: quick ? 20_000 : 45_000,
      });
      report.sharedLimit = shared;
      const line = shared.runs
        .map((r) =>
          r.errorPct === null
            ? `${r.kind} ${r.ratePerSec}/${r.burst} at ${r.offeredPerInstance * 2}/s: ${r.refused} refused, ${r.redisScriptCallsPerCall} Redis calls per call`
            : `${r.kind} ${r.ratePerSec}/${r.burst}: ${r.admitted} admitted vs ${r.allowed} allowed (${r.errorPct} %, fallbacks ${r.limiterFallbacks.join('+')}, load ${r.load.loadavg1Start}->${r.load.loadavg1End})`,
        )
        .join('; ');
      summaries.push(
        `shared limit, two instances, ${shared.busyLoopsStarted} busy loops (load ${shared.loadAtRampEnd} at ramp end): ${line}; ` +
          `worst ${shared.worstErrorPct} % (+-2: ${shared.met ? 'met' : 'NOT MET'})`,
      );
    } finally {
      client.disconnect();
    }
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`${summaries.join('\n')}\n`);
} finally {
  for (const s of stops.reverse()) await s();
}
