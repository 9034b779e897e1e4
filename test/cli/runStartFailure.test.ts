/**
 * A node that cannot start (its RPC port is taken) ends with status 1 and the reason, instead of hanging on the chain
 * thread that `xone run` started first (core/node/chainStart.ts; the run command closes it on a failed start).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
const datadir = mkdtempSync(join(ROOT, '.xone', 'test-e2e', 'busy-'));
const holder = createServer();
afterAll(async () => {
  await new Promise((r) => holder.close(r));
  rmSync(datadir, { recursive: true, force: true });
});

describe('xone run start failure', () => {
  it('error: a taken RPC port ends the process with status 1 and EADDRINUSE', async () => {
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as { port: number }).port;
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'xone.mjs'), 'run', '--dev', '--datadir', datadir, '--http.port', String(port)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('EADDRINUSE');
  }, 90_000);
});
