/**
 * One `xone run` child process of bench:follow: started with its own flags, its JSON log lines collected with the
 * time they arrived, its RPC on a port the bench picked, its RSS read from /proc/PID/status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** A parsed log line and when the bench received it (performance.now()). */
export interface BenchLogLine {
  msg: string;
  at: number;
  [key: string]: unknown;
}

/** A running node process. */
export interface NodeProcess {
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
  lines: BenchLogLine[];
  /** Resolves with the first line (from now on or already seen) whose msg is `msg`. */
  waitForLine(msg: string, timeoutMs: number): Promise<BenchLogLine>;
  /** The last 4,000 characters of its stderr (why it died, when it did). */
  stderrTail(): string;
  /** Resident set size in MB (VmRSS), or NaN once the process is gone. */
  rssMb(): number;
  /** VmRSS, RssAnon, RssFile and VmHWM in MB from /proc/PID/status, or undefined once the process is gone. */
  memory(): ProcMemory | undefined;
  stop(): Promise<void>;
}

/** Memory figures of a process from /proc/PID/status, MB. */
export interface ProcMemory {
  vmRss: number;
  rssAnon: number;
  rssFile: number;
  vmHwm: number;
}

/** Reads `ProcMemory` of `pid` (undefined when the process is gone or /proc is not there). */
export function procMemory(pid: number): ProcMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (name: string): number => Math.round(kb(name) / 102.4) / 10;
  return { vmRss: mb('VmRSS'), rssAnon: mb('RssAnon'), rssFile: mb('RssFile'), vmHwm: mb('VmHWM') };
}

/** A free TCP port on 127.0.0.1 (bound and released), so the bench knows a node's URL before it logs it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `node NODEFLAGS xone run ARGS` on a free port and resolves once it logs `readyMsg` (default `node started`). */
export async function startNode(
  name: string,
  args: string[],
  readyMsg = 'node started',
  timeoutMs = 120_000,
  nodeFlags: string[] = [],
  /** Receives the stdout lines that are not JSON log lines (V8's `--trace-gc` output, when that flag is given). */
  otherLine?: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<NodeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'bin', 'xone.mjs'), 'run', '--http.port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  const lines: BenchLogLine[] = [];
  const waiters: { msg: string; resolve: (l: BenchLogLine) => void }[] = [];
  let partial = '';
  let tail = '';
  child.stdout?.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const raw of parts) {
      if (!raw.startsWith('{')) {
        otherLine?.(raw);
        continue;
      }
      let line: BenchLogLine;
      try {
        line = { ...(JSON.parse(raw) as { msg: string }), at: performance.now() };
      } catch {
        continue;
      }
      lines.push(line);
      for (const w of waiters.filter((x) => x.msg === line.msg)) w.resolve(line);
    }
  });
  child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4000)));
  const waitForLine = (msg: string, ms: number): Promise<BenchLogLine> => {
    const seen = lines.find((l) => l.msg === msg);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no "${msg}" log line in ${ms} ms; stderr: ${tail}`)), ms);
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code}; stderr: ${tail}`)));
      waiters.push({
        msg,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  };
  await waitForLine(readyMsg, timeoutMs);
  const pid = child.pid as number;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid,
    child,
    lines,
    waitForLine,
    stderrTail: () => tail,
    rssMb: () => procMemory(pid)?.vmRss ?? NaN,
    memory: () => procMemory(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
