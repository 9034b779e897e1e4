import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EMITTER, KEYS, ADDRESSES } from './support/chainBuilder.ts';
import { Transaction } from 'ethers';
import { type Harness, startHarness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Msg = {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { subscription: string; result: unknown };
};

/** A WebSocket client that queues every message it receives. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const queue: Msg[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    queue.push(JSON.parse(d.toString()) as Msg);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const next = async (pred: (m: Msg) => boolean): Promise<Msg> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const i = queue.findIndex(pred);
      if (i >= 0) return queue.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error('no matching message');
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  return {
    ws,
    queue,
    next,
    async call(method: string, params: unknown[] = []) {
      const myId = ++id;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: myId, method, params }));
      return next((m) => m.id === myId);
    },
  };
}

describe('websocket', () => {
  test('default: calls and batches over WS on the same port', async () => {
    const c = await connect(h.wsUrl);
    expect((await c.call('eth_chainId')).result).toBe('0x539');
    c.ws.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 100, method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 101, method: 'net_version' },
      ]),
    );
    const batch = await c.next(() => true);
    expect(Array.isArray(batch)).toBe(true);
    c.ws.close();
  });

  test('behavior: newHeads, logs and newPendingTransactions subscriptions receive events; unsubscribe stops them', async () => {
    const c = await connect(h.wsUrl);
    const heads = (await c.call('eth_subscribe', ['newHeads'])).result as string;
    const logs = (await c.call('eth_subscribe', ['logs', { address: '0x' + Buffer.from(EMITTER).toString('hex') }])).result as string;
    const pending = (await c.call('eth_subscribe', ['newPendingTransactions'])).result as string;
    expect(heads).toMatch(/^0x[0-9a-f]+$/);
    const b = await h.node.produce([{ from: 2, to: EMITTER }]);
    const head = await c.next((m) => m.params?.subscription === heads);
    expect(head.method).toBe('eth_subscription');
    expect(head.params?.result).toMatchObject({
      hash: '0x' + Buffer.from(b.block.header.hash).toString('hex'),
      number: '0x' + b.block.header.number.toString(16),
    });
    const log = await c.next((m) => m.params?.subscription === logs);
    expect(log.params?.result).toMatchObject({ blockNumber: '0x' + b.block.header.number.toString(16), removed: false });
    const t = Transaction.from({
      type: 2,
      chainId: 1337n,
      nonce: 5,
      gasLimit: 21000n,
      to: '0x' + Buffer.from(ADDRESSES[0]).toString('hex'),
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    t.signature = KEYS[2].sign(t.unsignedHash);
    await h.call('eth_sendRawTransaction', [t.serialized]);
    expect((await c.next((m) => m.params?.subscription === pending)).params?.result).toBe(t.hash);
    expect((await c.call('eth_unsubscribe', [heads])).result).toBe(true);
    expect((await c.call('eth_unsubscribe', [heads])).error).toEqual({ code: -32000, message: 'subscription not found' });
    expect((await c.call('eth_subscribe', ['nope'])).error).toEqual({ code: -32601, message: 'no "nope" subscription in eth namespace' });
    await h.node.produce([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(c.queue.filter((m) => m.params?.subscription === heads)).toEqual([]);
    c.ws.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(h.server.services.subscriptions.size).toBe(0);
  });

  test('error: garbage frames get parse errors, oversized frames close with 1009, the server stays up', async () => {
    const c = await connect(h.wsUrl);
    c.ws.send('{{{not json');
    expect(await c.next(() => true)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    c.ws.send(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    expect((await c.next(() => true)).error?.code).toBe(-32700);
    const small = await startHarness({ maxBodyBytes: 1000 });
    const d = await connect(small.wsUrl);
    const closed = new Promise<number>((r) => d.ws.once('close', (code) => r(code)));
    d.ws.send('x'.repeat(2000));
    expect(await closed).toBe(1009);
    await small.close();
    expect((await c.call('eth_blockNumber')).result).toMatch(/^0x/);
    c.ws.close();
  });
});
