/** `xone run` JSON-RPC limit flags reach the server: a batch over --rpc.batch-request-limit is refused like geth. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';

let node: DevNode;
beforeAll(async () => {
  node = await startDevNode(['--rpc.batch-request-limit', '2']);
}, 90_000);
afterAll(async () => {
  await node?.stop();
});

describe('xone run limit flags', () => {
  it('error: a batch of 3 over a limit of 2 gets one -32600 "batch too large"', async () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([call(1), call(2), call(3)]),
    });
    const body = (await res.json()) as { error?: { code: number; message: string } }[] | { error?: { code: number; message: string } };
    const first = Array.isArray(body) ? body[0] : body;
    expect(first.error?.code).toBe(-32600);
    expect(first.error?.message).toMatch(/batch too large/);
    const ok = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([call(1), call(2)]),
    });
    expect(((await ok.json()) as unknown[]).length).toBe(2);
  });
});
