import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A redis-server owned by one test file. */
export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server abruptly (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Stops it (idempotent). */
  stop(): Promise<void>;
}

/**
 * Starts a real `redis-server` bound to 127.0.0.1 on a free port, without persistence, and waits until it answers
 * PING. Each test file starts its own and stops it in afterAll.
 */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const proc: ChildProcess = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
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
  const stopWith = async (signal: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await exited;
  };
  return { url, port, kill: () => stopWith('SIGKILL'), stop: () => stopWith('SIGTERM') };
}
