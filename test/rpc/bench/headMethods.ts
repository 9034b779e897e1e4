/**
 * Head-method latency of this RPC server (over the in-memory chain, own process) next to anvil in the same run: 500 sequential
 * calls each of eth_blockNumber, eth_chainId, eth_gasPrice, eth_getBalance and eth_getBlockByNumber(latest), p50/p95,
 * errors counted apart. Measures the server framework's own overhead (routing, parsing, dispatch, encoding); the full
 * node benchmark against anvil is the bench:rpc. Run: npm run bench:rpc-head
 */
import { spawn } from 'node:child_process';
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';

const CALLS = Number(process.env.CALLS ?? 500);
const ANVIL_PORT = 18000 + Math.floor(Math.random() * 1000);
const round = (x: number) => Math.round(x * 1000) / 1000;
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

// Our server runs in its own process, like anvil, so neither shares the client's event loop.
const ours = spawn(process.execPath, ['bin/run-ts.mjs', 'test/rpc/bench/serveMemory.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve, reject) => {
  ours.stdout.once('data', (d: Buffer) => resolve((JSON.parse(d.toString()) as { port: number }).port));
  ours.once('exit', () => reject(new Error('server process exited')));
});
// Its own process group: npx's wrapper starts the anvil binary as a child, and both must end with the run.
const anvil = spawn('npx', ['anvil', '--host', '127.0.0.1', '--port', String(ANVIL_PORT), '--silent'], {
  stdio: 'ignore',
  detached: true,
});

async function rpc(url: string, method: string, params: unknown[]): Promise<{ ms: number; code?: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { error?: { code: number } };
  return { ms: performance.now() - t0, code: body.error?.code };
}

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await rpc(url, 'eth_chainId', []);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('anvil did not start');
}

const methods: [string, unknown[]][] = [
  ['eth_blockNumber', []],
  ['eth_chainId', []],
  ['eth_gasPrice', []],
  ['eth_getBalance', ['0x' + '11'.repeat(20), 'latest']],
  ['eth_getBlockByNumber', ['latest', false]],
];

try {
  const oursUrl = `http://127.0.0.1:${port}/`;
  const peer = `http://127.0.0.1:${ANVIL_PORT}/`;
  await waitUp(peer);
  const results: Record<string, unknown> = {};
  for (const [m, params] of methods) {
    const t: Record<string, number[]> = { ours: [], anvil: [] };
    const errors: Record<string, Record<string, number>> = { ours: {}, anvil: {} };
    for (let i = 0; i < 20; i++) for (const url of [oursUrl, peer]) await rpc(url, m, params); // warm-up
    for (let i = 0; i < CALLS; i++) {
      for (const [name, url] of [
        ['ours', oursUrl],
        ['anvil', peer],
      ] as const) {
        const r = await rpc(url, m, params);
        if (r.code !== undefined) errors[name][r.code] = (errors[name][r.code] ?? 0) + 1;
        else t[name].push(r.ms);
      }
    }
    for (const k of Object.keys(t)) t[k].sort((a, b) => a - b);
    results[m] = {
      oursP50Ms: round(pct(t.ours, 50)),
      oursP95Ms: round(pct(t.ours, 95)),
      anvilP50Ms: round(pct(t.anvil, 50)),
      anvilP95Ms: round(pct(t.anvil, 95)),
      p50Ratio: round(pct(t.ours, 50) / pct(t.anvil, 50)),
      errors,
    };
  }
  let filesystem = 'unknown';
  try {
    filesystem = execSync('findmnt -n -o FSTYPE -T /tmp').toString().trim();
  } catch {
    /* not on Linux */
  }
  const out = {
    bench: 'rpc-head-methods',
    calls: CALLS,
    peer: 'anvil 1.7.1',
    results,
    filesystem,
    loadavg: loadavg().map(round),
    node: process.version,
  };
  console.log(JSON.stringify(out));
  console.log(
    'rpc-head-methods p50 ours/anvil: ' +
      Object.entries(results)
        .map(([m, r]) => `${m} ${(r as { p50Ratio: number }).p50Ratio}`)
        .join(', ') +
      `; load ${out.loadavg[0]}`,
  );
} finally {
  if (anvil.pid) process.kill(-anvil.pid, 'SIGTERM');
  ours.kill('SIGTERM');
}
