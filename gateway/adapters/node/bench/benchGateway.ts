/**
 * `npm run bench:gateway`: one run against one upstream (anvil until the core serves RPC) of
 *   direct → upstream; gateway uncached (X-Cache bypass); gateway cached (L1 hit); nginx proxy_pass + limit_req,
 * each at 32 requests in flight, plus the Redis limiter's decision latency. Prints one JSON document on stdout and a
 * one-line summary on stderr. `--quick`: 2 s per scenario instead of 8.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startRedis } from '../../../../test/support/redis.ts';
import { createRedis, waitReady } from '../redisClient.ts';
import { benchLimiter } from './limiterBench.ts';
import { load, type LoadResult } from './load.ts';
import { ensureNginx, startNginx } from './nginx.ts';

const quick = process.argv.includes('--quick');
const seconds = quick ? 2 : 8;
const loadStart = loadavg().map((x) => Number(x.toFixed(2)));
const dir = mkdtempSync(join(tmpdir(), 'xone-gw-bench-'));
const stops: (() => Promise<void> | void)[] = [];

async function waitHttp(url: string, body: string): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

try {
  const nginxBin = ensureNginx();
  const redis = await startRedis();
  stops.push(() => redis.stop());

  const anvilPort = await freePort();
  const anvil = spawn(resolve('node_modules/.bin/anvil'), ['--port', String(anvilPort), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
  stops.push(() => void anvil.kill('SIGTERM'));
  const anvilUrl = `http://127.0.0.1:${anvilPort}`;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] });
  await waitHttp(anvilUrl, body);

  const gwPort = await freePort();
  const config = {
    listen: { host: '127.0.0.1', port: gwPort },
    admin: { port: 0 },
    upstreams: [{ url: anvilUrl, maxConcurrent: 64 }],
    redis: { url: redis.url },
    identity: { keySecret: 'bench-secret-0123456789abcdef' },
    rateLimit: { backend: 'redis' },
    tiers: { anonymous: { ratePerSec: 1e9, burst: 1e9, denyMethods: [] }, default: { ratePerSec: 1e9, burst: 1e9, denyMethods: [] } },
    health: { maxHeadAgeMs: 0 },
    log: { successSampleRate: 0 },
  };
  const cfgFile = join(dir, 'gateway.json');
  writeFileSync(cfgFile, JSON.stringify(config));
  const gw = spawn(process.execPath, [resolve('bin/xone-gateway.mjs'), '--config', cfgFile], { stdio: ['ignore', 'ignore', 'inherit'] });
  stops.push(() => void gw.kill('SIGTERM'));
  const gwUrl = `http://127.0.0.1:${gwPort}`;
  await waitHttp(gwUrl, body);

  const nginxPort = await freePort();
  stops.push(await startNginx(nginxBin, dir, nginxPort, anvilPort));
  const nginxUrl = `http://127.0.0.1:${nginxPort}`;
  await waitHttp(nginxUrl, body);

  const bypass = { 'x-cache-bypass': '1' };
  const run = async (url: string, headers: Record<string, string> = {}): Promise<LoadResult> => {
    await load(url, body, headers, 1); // warm-up: JIT, keep-alive sockets, cache fill
    return load(url, body, headers, seconds);
  };
  const direct = await run(anvilUrl);
  const uncached = await run(gwUrl, bypass);
  const cached = await run(gwUrl);
  const nginx = await run(nginxUrl);
  const directAgain = await run(anvilUrl);

  const client = createRedis(redis.url, { commandTimeoutMs: 5_000 });
  await waitReady(client);
  const limiter = await benchLimiter(client, quick ? 2_000 : 10_000);
  client.disconnect();

  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const report = {
    bench: 'gateway',
    date: new Date().toISOString(),
    upstream: 'anvil 1.7.1 (stand-in for the core node until it serves RPC)',
    call: 'eth_getBlockByNumber ["0x0", false]',
    inFlight: 32,
    secondsPerScenario: seconds,
    host: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model,
      node: process.version,
      filesystem: execFileSync('findmnt', ['-T', dir, '-n', '-o', 'SOURCE,FSTYPE'], { encoding: 'utf8' }).trim(),
      loadavgStart: loadStart,
      loadavgEnd: loadavg().map((x) => Number(x.toFixed(2))),
    },
    scenarios: { direct, gatewayUncached: uncached, gatewayCached: cached, nginx, directAgain },
    addedLatencyMs: {
      gatewayUncachedP50: r3(uncached.p50Ms - direct.p50Ms),
      gatewayUncachedP99: r3(uncached.p99Ms - direct.p99Ms),
      nginxP50: r3(nginx.p50Ms - direct.p50Ms),
      nginxP99: r3(nginx.p99Ms - direct.p99Ms),
    },
    ratios: {
      cachedVsDirectReqPerSec: r3(cached.reqPerSec / direct.reqPerSec),
      uncachedVsNginxReqPerSec: r3(uncached.reqPerSec / nginx.reqPerSec),
      uncachedVsDirectReqPerSec: r3(uncached.reqPerSec / direct.reqPerSec),
    },
    limiter,
    targets: {
      addedP50UncachedMs: { target: 0.25, measured: r3(uncached.p50Ms - direct.p50Ms), met: uncached.p50Ms - direct.p50Ms <= 0.25 },
      cachedVsDirect: { target: 1.5, measured: r3(cached.reqPerSec / direct.reqPerSec), met: cached.reqPerSec >= 1.5 * direct.reqPerSec },
      limiterP99Ms: { target: 1, measured: limiter.redisSequential.p99Ms, met: limiter.redisSequential.p99Ms <= 1 },
    },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(
    `gateway: direct ${direct.reqPerSec}/s p50 ${direct.p50Ms} ms; uncached ${uncached.reqPerSec}/s +${report.addedLatencyMs.gatewayUncachedP50} ms p50; ` +
      `cached ${cached.reqPerSec}/s (${report.ratios.cachedVsDirectReqPerSec}x direct); nginx ${nginx.reqPerSec}/s +${report.addedLatencyMs.nginxP50} ms p50; ` +
      `redis limiter p50 ${limiter.redisSequential.p50Ms} ms p99 ${limiter.redisSequential.p99Ms} ms (load ${loadStart.join(' ')})\n`,
  );
} finally {
  for (const s of stops.reverse()) await s();
}
