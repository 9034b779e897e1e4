/** Starts `xone run --dev` as a child process with extra environment (test hooks) and collects its JSON log lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** One parsed JSON log line with the wall-clock time the test received it. */
export interface LogLine {
  msg: string;
  time: number;
  level: number | string;
  receivedAt: number;
  /** Position among the parsed lines. */
  seq: number;
  [key: string]: unknown;
}

export interface NodeChild {
  url: string;
  child: ChildProcess;
  lines: LogLine[];
  /** Resolves with the first line whose msg is `msg`, after `since` when given (rejects after `timeoutMs`). */
  waitForLine(msg: string, timeoutMs: number, since?: LogLine): Promise<LogLine>;
  /** Resolves with (code, signal) when the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stop(): Promise<void>;
}

export async function startNodeChild(env: Record<string, string>, args: string[] = [], timeoutMs = 60_000): Promise<NodeChild> {
  mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
  const datadir = mkdtempSync(join(ROOT, '.xone', 'test-e2e', 'hook-'));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'xone.mjs'), 'run', '--dev', '--datadir', datadir, '--http.port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  const lines: LogLine[] = [];
  const waiters: { msg: string; after: number; resolve: (l: LogLine) => void }[] = [];
  let out = '';
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    const text = d.toString();
    out += text;
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    for (const raw of parts) {
      if (!raw.startsWith('{')) continue;
      const line = { ...(JSON.parse(raw) as LogLine), receivedAt: Date.now(), seq: lines.length };
      lines.push(line);
      for (const w of waiters.filter((x) => line.msg === x.msg && line.seq > x.after)) w.resolve(line);
    }
  });
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child.stdout?.on('data', () => {
      const m = /JSON-RPC \(HTTP and WebSocket\): (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code }) => reject(new Error(`node exited with ${code}:\n${out}`)));
  });
  return {
    url,
    child,
    lines,
    exited,
    waitForLine(msg, ms, since) {
      const after = since?.seq ?? -1;
      const seen = lines.find((l) => l.msg === msg && l.seq > after);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no log line "${msg}" within ${ms} ms:\n${out}`)), ms);
        waiters.push({ msg, after, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(datadir, { recursive: true, force: true });
    },
  };
}
