import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { freePort } from '../support/redis.ts';
import { WRANGLER_ENV } from './support/bundle.ts';

const TOKEN = 'wrangler-dev-admin-token-0123456789';

test('behavior: wrangler dev serves the Worker offline on 127.0.0.1 (/health answers JSON)', async () => {
  const port = await freePort();
  const args = [
    'dev',
    '-c',
    'workers/wrangler.jsonc',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--var',
    'XONE_GATEWAY_UPSTREAMS:http://127.0.0.1:1',
    '--var',
    `XONE_GATEWAY_ADMIN_TOKEN:${TOKEN}`,
  ];
  // Its own process group, so stopping it also stops the workerd it starts.
  const proc = spawn(resolve('node_modules/.bin/wrangler'), args, { env: WRANGLER_ENV, stdio: 'ignore', detached: true });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  try {
    const t0 = Date.now();
    let body: { ok?: boolean; upstreams?: { name: string }[] } | undefined;
    // A readiness wait, not a speed claim: wrangler dev and its workerd start in ~8 s alone but took over 45 s at
    // load ~15 with the other Workers files running beside it.
    while (!body) {
      expect(Date.now() - t0).toBeLessThan(120_000);
      await new Promise((r) => setTimeout(r, 250));
      body = await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${TOKEN}` } })
        .then((r) => r.json() as Promise<typeof body>)
        .catch(() => undefined);
    }
    console.log(JSON.stringify({ wranglerDevReadyMs: Date.now() - t0 }));
    expect(body.upstreams?.map((u) => u.name)).toEqual(['u0']);
  } finally {
    if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, 'SIGTERM');
    await exited;
  }
}, 150_000);
