/** Runs a TypeScript fixture as a real child process and collects its JSON stdout lines and how it ended. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUN_TS = fileURLToPath(new URL('../../../bin/run-ts.mjs', import.meta.url));

export interface FixtureResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Parsed JSON lines of stdout (non-JSON lines are kept as `{ raw }`). */
  lines: Record<string, unknown>[];
  stderr: string;
  /** Date.now() when the process ended. */
  endedAt: number;
}

export interface RunningFixture {
  pid: number;
  result: Promise<FixtureResult>;
  /** Resolves with the first line whose `event` (or `msg`) equals `name`. */
  waitFor(name: string): Promise<Record<string, unknown>>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `fixture` (a path relative to test/runtime/fixtures) with string args; kills it after `timeoutMs`. */
export function startFixture(fixture: string, args: string[], timeoutMs = 60_000): RunningFixture {
  const path = fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url));
  const child = spawn(process.execPath, [RUN_TS, path, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: { name: string; resolve: (l: Record<string, unknown>) => void }[] = [];
  let buf = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { raw: text };
      }
      lines.push(line);
      for (const w of [...waiters]) {
        if (line.event === w.name || line.msg === w.name) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const result = new Promise<FixtureResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, lines, stderr, endedAt: Date.now() });
    });
  });
  return {
    pid: child.pid ?? -1,
    result,
    waitFor: (name) => {
      const found = lines.find((l) => l.event === name || l.msg === name);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ name, resolve }));
    },
    kill: (signal) => child.kill(signal),
  };
}
