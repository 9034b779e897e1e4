/**
 * The processes a gateway benchmark runs against, started here rather than borrowed from test/support (issue #12: the
 * benchmarks are tooling with their own home, importing no test code): the core dev node (`xone run --dev`, a real
 * child process) and a redis-server, both on free 127.0.0.1 ports and removed again by `stop()`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';

/** A process started for a benchmark. */
export interface BenchService {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/**
 * `xone run --dev` from this checkout; resolves with its RPC URL once it prints it. By default in a throw-away datadir
 * on a free port; `at` restarts one on the same port and datadir (kept on stop: an outage, then the same chain back).
 */
export async function startCore(timeoutMs = 60_000, at?: { port: number; datadir: string }): Promise<BenchService> {
  const datadir = at?.datadir ?? mkdtempSync(join(tmpdir(), 'xone-gw-bench-core-'));
  const args = [resolve('bin/xone.mjs'), 'run', '--dev', '--datadir', datadir, '--http.port', String(at?.port ?? 0)];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`core did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /JSON-RPC \(HTTP and WebSocket\): (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1] as string);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => fail(new Error(`core exited with ${code}:\n${out}`)));
  });
  return {
    url,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!at) rmSync(datadir, { recursive: true, force: true });
    },
  };
}

/** A redis-server without persistence on a free port (the limiter figures need no durability), ready for commands. */
export async function startRedis(): Promise<BenchService> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    pid: proc.pid as number,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
