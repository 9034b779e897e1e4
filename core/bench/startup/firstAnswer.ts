/**
 * One start-up sample for `bench:startup`: spawn a command (in its own process group, so npm/npx wrappers and their
 * children end together), poll `eth_chainId` on 127.0.0.1 until it answers, then stop the whole group.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (closed again before returning; the command binds it next). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** One JSON-RPC call over a fresh connection; resolves to a string result, or undefined when nothing answers yet. */
export function callString(port: number, method: string): Promise<string | undefined> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] });
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            const body = JSON.parse(text) as { result?: unknown };
            resolve(typeof body.result === 'string' ? body.result : undefined);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', () => resolve(undefined));
    req.setTimeout(2_000, () => req.destroy());
    req.end(body);
  });
}

/** What one start measured. */
export interface Sample {
  /** Spawn to the first successful eth_chainId answer, ms. */
  ms: number;
  chainId: string;
  /** Spawn to the first eth_blockNumber answer (asked once eth_chainId answered): the store is being served. */
  blockNumberMs: number;
  /**
   * CPU time (user + system, all threads) the spawned process had used when eth_chainId answered: less sensitive to
   * other load than wall time. For a wrapper (npm, npx) it is the wrapper's own CPU only.
   */
  cpuMs: number | undefined;
}

/** utime + stime of a process from /proc/<pid>/stat, in ms (Linux; undefined elsewhere). */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), counted from the state field (3), in clock ticks of 1/100 s on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * Spawns `command args` and resolves with the time until eth_chainId answers on `port`; polls every `pollMs`.
 * Throws (after stopping the group) when the process exits first or `timeoutMs` passes.
 */
export async function timeToFirstAnswer(
  command: string,
  args: string[],
  port: number,
  cwd: string,
  timeoutMs = 60_000,
  pollMs = 5,
): Promise<Sample> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    for (;;) {
      const id = await callString(port, 'eth_chainId');
      if (id !== undefined) {
        const ms = performance.now() - t0;
        const cpuMs = processCpuMs(child.pid);
        while ((await callString(port, 'eth_blockNumber')) === undefined) {
          if (performance.now() - t0 > timeoutMs)
            throw new Error(`${command} answered eth_chainId but not eth_blockNumber within ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, pollMs));
        }
        return { ms, chainId: id, blockNumberMs: performance.now() - t0, cpuMs };
      }
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${command} exited (${child.exitCode ?? child.signalCode}) before answering:\n${stderr}`);
      if (performance.now() - t0 > timeoutMs) throw new Error(`${command} did not answer within ${timeoutMs} ms:\n${stderr}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    await stopGroup(child.pid, exited);
  }
}

/** SIGTERM to the process group, SIGKILL if it is still there after 10 s. */
async function stopGroup(pid: number | undefined, exited: Promise<void>): Promise<void> {
  if (pid === undefined) return;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  // The group's other members (npm's child node, anvil's binary) may outlive the leader briefly; wait until no member remains.
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  signal('SIGKILL');
}
