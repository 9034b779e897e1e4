/** Starts `xone run --dev` as a real child process on a free 127.0.0.1 port, for end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export interface DevNode {
  url: string;
  wsUrl: string;
  datadir: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * `env`: extra environment of the child (test hooks, core/node/testHooks.ts). `datadir`: reopen this one (a restart
 * test), which `stop()` then leaves in place; by default a fresh one that `stop()` removes.
 */
export async function startDevNode(
  extraArgs: string[] = [],
  timeoutMs = 60_000,
  env: Record<string, string> = {},
  reuse: { datadir?: string } = {},
): Promise<DevNode> {
  mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
  const datadir = reuse.datadir ?? mkdtempSync(join(ROOT, '.xone', 'test-e2e', 'dev-'));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'xone.mjs'), 'run', '--dev', '--datadir', datadir, '--http.port', '0', ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev node did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = (): void => {
      const m = /JSON-RPC \(HTTP and WebSocket\): (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => reject(new Error(`dev node exited with ${code}:\n${out}`)));
  });
  return {
    url,
    wsUrl: url.replace('http://', 'ws://'),
    datadir,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!reuse.datadir) rmSync(datadir, { recursive: true, force: true });
    },
  };
}
