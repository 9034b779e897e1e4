/** The WebSocket transport of the real node's RPC server: calls, batches, subscriptions fed by sealed blocks, limits. */
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADDRESSES, type FixtureChain, Sender, buildFixtureChain } from './support/fixtureChain.ts';
import { type RealNode, startRealNode } from './support/realNode.ts';

let h: RealNode;
let f: FixtureChain;
beforeAll(async () => {
  // A small body limit, so an oversized frame is cheap to send.
  h = await startRealNode({ rpc: { maxBodyBytes: 1000 } });
  f = await buildFixtureChain(h);
});
afterAll(() => h?.close());

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
    const logs = (await c.call('eth_subscribe', ['logs', { address: f.emitter }])).result as string;
    const pending = (await c.call('eth_subscribe', ['newPendingTransactions'])).result as string;
    expect(heads).toMatch(/^0x[0-9a-f]+$/);
    const sender = new Sender(h);
    const b = await sender.block([{ from: 2, to: f.emitter, tip: 1n }]);
    const sealed = await h.result<{ hash: string; number: string; stateRoot: string }>('eth_getBlockByNumber', ['latest', false]);
    const head = await c.next((m) => m.params?.subscription === heads);
    expect(head.method).toBe('eth_subscription');
    expect(head.params?.result).toMatchObject({ hash: sealed.hash, number: '0x' + b.number.toString(16), stateRoot: sealed.stateRoot });
    const log = await c.next((m) => m.params?.subscription === logs);
    expect(log.params?.result).toMatchObject({
      address: f.emitter,
      blockNumber: '0x' + b.number.toString(16),
      blockHash: sealed.hash,
      transactionHash: b.txs[0].hash,
      removed: false,
    });
    // Every transaction the pool took was announced: the one sealed above, then a new one.
    expect((await c.next((m) => m.params?.subscription === pending)).params?.result).toBe(b.txs[0].hash);
    const t = await sender.send({ from: 2, to: ADDRESSES[0], value: 1n, tip: 1n });
    expect((await c.next((m) => m.params?.subscription === pending)).params?.result).toBe(t.hash);
    expect((await c.call('eth_unsubscribe', [heads])).result).toBe(true);
    expect((await c.call('eth_unsubscribe', [heads])).error).toEqual({ code: -32000, message: 'subscription not found' });
    expect((await c.call('eth_subscribe', ['nope'])).error).toEqual({ code: -32601, message: 'no "nope" subscription in eth namespace' });
    await h.mine();
    await new Promise((r) => setTimeout(r, 100));
    expect(c.queue.filter((m) => m.params?.subscription === heads)).toEqual([]);
    c.ws.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(h.node.rpc.services.subscriptions.size).toBe(0);
  });

  test('error: garbage frames get parse errors, oversized frames close with 1009, the server stays up', async () => {
    const c = await connect(h.wsUrl);
    c.ws.send('{{{not json');
    expect(await c.next(() => true)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    c.ws.send(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    expect((await c.next(() => true)).error?.code).toBe(-32700);
    const d = await connect(h.wsUrl);
    const closed = new Promise<number>((r) => d.ws.once('close', (code) => r(code)));
    d.ws.send('x'.repeat(2000));
    expect(await closed).toBe(1009);
    expect((await c.call('eth_blockNumber')).result).toMatch(/^0x/);
    c.ws.close();
  });
});
