import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../gateway/support/scriptedUpstream.ts';
import { freePort } from '../support/redis.ts';
import { WRANGLER_ENV } from './support/bundle.ts';

// Usage on Workers was kept in each isolate's memory (a report showed one isolate's share, lost with the isolate).
// Now every isolate adds to one Durable Object per key (UsageObject). Under `wrangler dev` with its state on disk:
// a key's calls, admitted and refused, are read back by the key holder and the admin, and again after wrangler dev
// was stopped and started on the same state (so they were in the object's storage, not in the isolate).
const TOKEN = 'wrangler-dev-admin-token-0123456789';
let up: ScriptedUpstream;
let state: string;

beforeAll(async () => {
  up = await startScriptedUpstream(() => ({ result: '0x1' }));
  state = mkdtempSync(join(tmpdir(), 'xone-wrangler-state-'));
});
afterAll(async () => {
  await up?.stop();
  rmSync(state, { recursive: true, force: true });
});

/** `wrangler dev` on a free port with its Durable Object state in `state`; resolves once /health answers. */
async function wranglerDev(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const config = {
    tiers: { anonymous: { ratePerSec: 10, burst: 20 }, default: { ratePerSec: 0.1, burst: 5 } },
    log: { successSampleRate: 0 },
  };
  const vars = {
    XONE_GATEWAY_UPSTREAMS: up.url,
    XONE_GATEWAY_ADMIN_TOKEN: TOKEN,
    XONE_GATEWAY_KEY_SECRET: 'wrangler-dev-key-secret-0123456789abcdef',
    GATEWAY_CONFIG: JSON.stringify(config),
  };
  const args = ['dev', '-c', 'workers/wrangler.jsonc', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', state];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  // Its own process group, so stopping it also stops the workerd it starts.
  const proc = spawn(resolve('node_modules/.bin/wrangler'), args, { env: WRANGLER_ENV, stdio: 'ignore', detached: true });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, 'SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  for (;;) {
    if (Date.now() - t0 > 120_000) {
      await stop();
      throw new Error('wrangler dev did not answer /health within 120 s (a readiness wait: ~8 s on a quiet host)');
    }
    await new Promise((r) => setTimeout(r, 250));
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop };
  }
}

type Counts = { calls: number; computeUnits: number; refused: number };
type Report = { keyId: string; total: Counts; days: { date: string; methods: Record<string, Counts> }[] };

test('behavior: on Workers (wrangler dev), per-key usage lives in a Durable Object: shared, read back, kept across a restart', async () => {
  let dev = await wranglerDev();
  try {
    const created = await fetch(`${dev.url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' });
    expect(created.status).toBe(201);
    const { key, record } = (await created.json()) as { key: string; record: { id: string } };
    const rpc = (body: unknown) =>
      fetch(dev.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).status).toBe(200);
    // Past the burst of 5: the tail of the batch is refused.
    const batch = Array.from({ length: 8 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_getBalance',
      params: ['0x' + '44'.repeat(20), 'latest'],
    }));
    const answers = (await (await rpc(batch)).json()) as { error?: { code: number } }[];
    const refused = answers.filter((a) => a.error?.code === -32005).length;
    expect(refused).toBeGreaterThan(0);
    const expected = {
      eth_chainId: { calls: 1, computeUnits: 1, refused: 0 },
      eth_getBalance: { calls: 8, computeUnits: 8 - refused, refused },
    };
    const read = async (url: string, headers: Record<string, string>) => {
      const r = await fetch(url, { headers });
      return { status: r.status, body: (await r.json()) as Report };
    };
    // Flushed in the background of the requests (ctx.waitUntil), about a second after the calls.
    let today: Record<string, Counts> | undefined;
    const t0 = Date.now();
    while (JSON.stringify(today) !== JSON.stringify(expected)) {
      expect(Date.now() - t0, JSON.stringify(today)).toBeLessThan(20_000);
      await new Promise((r) => setTimeout(r, 1_100));
      const r = await read(`${dev.url}/usage`, { 'x-api-key': key });
      expect(r.status).toBe(200);
      today = r.body.days.at(-1)?.methods;
    }
    const admin = await read(`${dev.url}/admin/keys/${record.id}/usage?days=1`, { authorization: `Bearer ${TOKEN}` });
    expect(admin.status).toBe(200);
    expect(admin.body.days.at(-1)?.methods).toEqual(expected);

    // Stopped and started on the same state: the counts come from the object's storage.
    await dev.stop();
    dev = await wranglerDev();
    const after = await read(`${dev.url}/v1/${key}/usage?days=2`, {});
    expect(after.status).toBe(200);
    expect(after.body.days).toHaveLength(2);
    expect(after.body.days.at(-1)?.methods).toEqual(expected);
    expect(after.body.total).toEqual({ calls: 9, computeUnits: 9 - refused, refused });
  } finally {
    await dev.stop();
  }
}, 240_000);
