/**
 * The two peers of `bench:rpc`, each a real child process on 127.0.0.1: our `xone run --dev` (datadir under the
 * repo's .xone/, so the recorded filesystem is the one it writes) and anvil from npm @foundry-rs/anvil (offline).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { call } from './client.ts';
import { processGroup } from './processCpu.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** A started peer: its URL, and how to stop it (and remove what it wrote). */
export interface Peer {
  name: string;
  url: string;
  datadir?: string;
  /** The processes serving it (for CPU per request). */
  pids(): number[];
  stop(): Promise<void>;
}

async function exitOf(child: ChildProcess, kill: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  kill();
  await exited;
}

/**
 * Starts `xone run --dev --http.port 0` (plus `extraArgs`, with `env` added to this process's environment) and reads
 * the URL from its banner line.
 */
export async function startOurs(
  timeoutMs = 90_000,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  name = 'xone',
): Promise<Peer> {
  mkdirSync(join(ROOT, '.xone', 'bench-rpc'), { recursive: true });
  const datadir = mkdtempSync(join(ROOT, '.xone', 'bench-rpc', 'dev-'));
  // XONE_BENCH_NODE_ARGS: node flags for our node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`: NODE_OPTIONS refuses them).
  const nodeArgs = (process.env.XONE_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, join(ROOT, 'bin', 'xone.mjs'), 'run', '--dev', '--datadir', datadir, '--http.port', '0', ...extraArgs];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  // XONE_BENCH_NODE_LOG: a file that gets all our node's output (e.g. a `--trace-gc` trace), not only its last 20 kB.
  const log = process.env.XONE_BENCH_NODE_LOG ? createWriteStream(process.env.XONE_BENCH_NODE_LOG, { flags: 'a' }) : undefined;
  if (log) {
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`xone did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child.stdout?.on('data', () => {
      const m = /JSON-RPC \(HTTP and WebSocket\): (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`xone exited with ${code}:\n${out}`)));
  });
  return {
    name,
    url,
    datadir,
    pids: () => (child.pid ? [child.pid] : []),
    async stop() {
      await exitOf(child, () => child.kill('SIGTERM'));
      rmSync(datadir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts anvil with our dev chain id and as many funded mnemonic accounts (anvil funds 10 by default), so the same signed transactions are valid on both peers. */
export async function startAnvil(chainId: number, accounts: number, timeoutMs = 60_000, extraArgs: string[] = []): Promise<Peer> {
  const port = await freePort();
  // Its own process group: npx starts the anvil binary as a grandchild, and both must end with the run.
  const child = spawn(
    'npx',
    [
      'anvil',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--chain-id',
      String(chainId),
      '--accounts',
      String(accounts),
      '--silent',
      ...extraArgs,
    ],
    {
      stdio: 'ignore',
      detached: true,
      cwd: ROOT,
    },
  );
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(url, 'eth_chainId', []);
    if (r.code === undefined) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('anvil did not start');
    await new Promise((res) => setTimeout(res, 100));
  }
  return {
    name: 'anvil',
    url,
    pids: () => (child.pid ? processGroup(child.pid) : []),
    async stop() {
      await exitOf(child, () => child.pid && process.kill(-child.pid, 'SIGTERM'));
    },
  };
}
