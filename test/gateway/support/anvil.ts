import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../support/redis.ts';

/** An anvil dev node on 127.0.0.1 (the upstream until the core serves RPC). */
export interface TestAnvil {
  url: string;
  wsUrl: string;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  stop(): Promise<void>;
}

/** Starts anvil (npm @foundry-rs/anvil, offline) on a free port and waits for eth_chainId. */
export async function startAnvil(): Promise<TestAnvil> {
  const port = await freePort();
  const bin = resolve('node_modules/.bin/anvil');
  const proc = spawn(bin, ['--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('anvil did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    rpc,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
