/**
 * One `xone-gateway` process for a benchmark: written config, free ports, waited for until it answers, stopped (and
 * waited for: a CPU profile is written on exit) by the returned `stop`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './services.ts';

/** A running gateway process. */
export interface GatewayProcess {
  url: string;
  pid: number;
  adminPort: number;
  stop(): Promise<void>;
}

/** What a bench's gateway shares with the others of its run. */
export interface GatewayProcessOptions {
  /** Checkout whose bin/xone-gateway.mjs runs (an older build: `--baseline`). */
  root: string;
  /** Config file name in `dir`. */
  name: string;
  dir: string;
  coreUrl: string;
  redisUrl: string;
  adminToken: string;
  /** Config fields set over the bench's base config (top-level fields replace the base's). */
  config?: Record<string, unknown>;
  /** `--cpu-prof` into this directory. */
  profDir?: string;
  /** Receives each JSON log line the process writes on stdout (unset: stdout is discarded). */
  onLogLine?: (line: Record<string, unknown>) => void;
}

/** Polls `url` with a POST of `body` until it answers 200 (30 s at most). */
export async function waitHttp(url: string, body: string): Promise<void> {
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

const PROBE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

/** Starts one gateway process on free ports and resolves once it answers. */
export async function startGatewayProcess(o: GatewayProcessOptions): Promise<GatewayProcess> {
  const port = await freePort();
  const adminPort = await freePort();
  const config = {
    listen: { host: '127.0.0.1', port },
    admin: { port: adminPort, token: o.adminToken },
    upstreams: [{ url: o.coreUrl, maxConcurrent: 64 }],
    redis: { url: o.redisUrl },
    identity: { keySecret: 'bench-secret-0123456789abcdef' },
    health: { maxHeadAgeMs: 0 },
    log: { successSampleRate: 0 },
    ...o.config,
  };
  const cfgFile = join(o.dir, `${o.name}.json`);
  writeFileSync(cfgFile, JSON.stringify(config));
  const args = [
    ...(o.profDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(o.profDir)] : []),
    join(o.root, 'bin/xone-gateway.mjs'),
    '--config',
    cfgFile,
  ];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', o.onLogLine ? 'pipe' : 'ignore', 'inherit'] });
  const onLine = o.onLogLine;
  if (onLine && proc.stdout)
    createInterface({ input: proc.stdout }).on('line', (text) => {
      try {
        onLine(JSON.parse(text) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(url, PROBE);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: proc.pid as number, adminPort, stop };
}

/** Sum of a counter's series in an instance's Prometheus text (admin /metrics). */
export async function counterTotal(g: GatewayProcess, adminToken: string, name: string): Promise<number> {
  const text = await (
    await fetch(`http://127.0.0.1:${g.adminPort}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
  ).text();
  const re = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?)`, 'gm');
  return [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
}
