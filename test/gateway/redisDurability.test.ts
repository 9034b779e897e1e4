import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { freePort } from '../support/redis.ts';
import { ADMIN_TOKEN, call, post, startTestGateway, testConfig, until } from './support/gateway.ts';

// Issue #17 item 10: the Redis the docs described (`--save '' --appendonly no`) lost every API key when it restarted.
// A real redis-server runs on the documented config file (infra/redis/redis.conf), is killed and started again on
// the same directory, and a fresh gateway instance still accepts the key.
let node: DevNode;
const dirs: string[] = [];
const running: ChildProcess[] = [];

beforeAll(async () => {
  node = await startDevNode();
}, 90_000);
afterAll(async () => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await node?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** redis-server on `args` (a config file and overrides) in `dir`; resolves once it answers PING. */
async function redisServer(args: string[], port: number, dir: string): Promise<{ url: string; kill(): Promise<void> }> {
  const proc = spawn('redis-server', [...args, '--port', String(port), '--dir', dir, '--bind', '127.0.0.1'], { stdio: 'ignore' });
  running.push(proc);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `redis://127.0.0.1:${port}`;
  await until(async () => {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  }, 10_000);
  return {
    url,
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

async function keyAfterRestart(args: string[]): Promise<{ accepted: boolean; warnings: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'xone-gw-redis-'));
  dirs.push(dir);
  const port = await freePort();
  const first = await redisServer(args, port, dir);
  const cfg = testConfig({ upstreams: [node.url], redis: { url: first.url, prefix: 'dur:' }, rateLimit: { backend: 'redis' } });
  const a = await startTestGateway(cfg, { start: false });
  let key: string;
  try {
    const created = await fetch(`${a.adminUrl}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: '{"label":"durable"}',
    });
    ({ key } = (await created.json()) as { key: string });
    expect((await post(a.url, call('eth_chainId'), { 'x-api-key': key })).status).toBe(200);
  } finally {
    await a.close();
  }
  // Killed as a crash would (no shutdown save), then started again on the same directory.
  await first.kill();
  await redisServer(args, port, dir);
  const b = await startTestGateway(cfg, { start: false });
  try {
    const r = await post(b.url, call('eth_chainId'), { 'x-api-key': key });
    return { accepted: r.status === 200, warnings: b.warnings };
  } finally {
    await b.close();
  }
}

test('behavior: API keys survive a killed and restarted redis-server on infra/redis/redis.conf', async () => {
  const { accepted, warnings } = await keyAfterRestart([resolve('infra/redis/redis.conf')]);
  expect(accepted).toBe(true);
  expect(warnings).toEqual([]);
}, 60_000);

test('error: on the old documented flags (no AOF, no snapshots) the key is gone, and the gateway says so at start', async () => {
  const { accepted, warnings } = await keyAfterRestart(['--save', '', '--appendonly', 'no']);
  expect(accepted).toBe(false);
  expect(warnings.join('\n')).toMatch(/every API key is lost when it restarts/);
}, 60_000);
