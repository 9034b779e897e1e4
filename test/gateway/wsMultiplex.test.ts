import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startFaultProxy, type FaultProxy } from './support/faultProxy.ts';
import { call, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// Issue #17 item 8: each client WebSocket had its own core socket (100 anonymous sockets became 100 core sockets).
// One real core dev node (a block a second); client subscriptions are multiplexed over shared upstream sockets.
let node: DevNode;
let g: TestGateway;
let proxy: FaultProxy;
let viaProxy: TestGateway;

const config = (url: string, wsUrl: string) =>
  testConfig({
    upstreams: [{ url, wsUrl }],
    tiers: { anonymous: { ratePerSec: 10_000, burst: 10_000 }, default: { ratePerSec: 100, burst: 100 } },
    limits: { maxWsPerIp: 500, maxSubscriptionsPerWs: 3 },
    head: { pollMs: 60_000, newHeads: false },
  });

beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
  proxy = await startFaultProxy(node.url);
  [g, viaProxy] = await Promise.all([startTestGateway(config(node.url, node.wsUrl)), startTestGateway(config(proxy.url, proxy.wsUrl))]);
  await until(() => g.gateway.pool.upstreams[0]?.head !== -1, 20_000);
}, 90_000);
afterAll(async () => {
  await Promise.all([g?.close(), viaProxy?.close()]);
  await proxy?.stop();
  await node?.stop();
});

/** Established TCP connections to `port` on this host, counted on the server side (the core's sockets). */
function establishedTo(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      const local = f[1] as string;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && f[3] === '01') n++;
    }
  }
  return n;
}

interface Msg {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { subscription: string; result: { number?: string; hash?: string } };
}

/** A client socket collecting what it receives. */
async function client(url: string): Promise<{ ws: WebSocket; got: Msg[]; ask(m: string, p: unknown[], id: number): Promise<Msg> }> {
  const ws = new WebSocket(url.replace('http', 'ws'));
  const got: Msg[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString()) as Msg));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  return {
    ws,
    got,
    async ask(method, params, id) {
      ws.send(JSON.stringify(call(method, params, id)));
      return until(() => got.find((m) => m.id === id), 15_000);
    },
  };
}

const gauge = async (gw: TestGateway, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await gw.metricsText())?.[1]);

test('behavior: 100 client sockets subscribing to newHeads share one core socket and one core subscription; each keeps its own id', async () => {
  const corePort = Number(new URL(node.url).port);
  const before = establishedTo(corePort);
  const clients = await Promise.all(Array.from({ length: 100 }, () => client(g.url)));
  const subs = await Promise.all(clients.map((c) => c.ask('eth_subscribe', ['newHeads'], 1)));
  const ids = subs.map((s) => s.result as string);
  expect(ids.every((id) => /^0x[0-9a-f]{32}$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(100);
  // The core sees one more socket (the shared upstream one), not 100; keep-alive HTTP sockets of the two gateways'
  // probes (one through the fault proxy) may come and go meanwhile.
  expect(establishedTo(corePort) - before).toBeLessThanOrEqual(5);
  expect(await gauge(g, 'xone_gateway_ws_upstream_sockets')).toBe(1);
  expect(await gauge(g, 'xone_gateway_ws_upstream_subscriptions')).toBe(1);
  expect(await gauge(g, 'xone_gateway_ws_client_subscriptions')).toBe(100);
  // The next head reaches every client, under that client's id, the same block for all.
  const heads = await Promise.all(
    clients.map((c, i) => until(() => c.got.find((m) => m.method === 'eth_subscription' && m.params?.subscription === ids[i]), 15_000)),
  );
  const first = heads[0]?.params?.result.hash;
  expect(typeof first).toBe('string');
  const sameBlock = await Promise.all(
    clients.map((c) => until(() => c.got.find((m) => m.method === 'eth_subscription' && m.params?.result.hash === first), 15_000)),
  );
  expect(sameBlock).toHaveLength(100);

  // Unsubscribe: true for the owner, geth's error for an id that is not (or no longer) this client's.
  const [a, b] = clients as [(typeof clients)[number], (typeof clients)[number]];
  expect((await b.ask('eth_unsubscribe', [ids[0]], 2)).error).toMatchObject({ code: -32000, message: 'subscription not found' });
  expect((await a.ask('eth_unsubscribe', [ids[0]], 3)).result).toBe(true);
  expect((await a.ask('eth_unsubscribe', [ids[0]], 4)).error?.code).toBe(-32000);
  // A different subscription is a second upstream one; identical ones again share it; plain calls work alongside.
  const logs1 = await a.ask('eth_subscribe', ['logs', { address: '0x00000000000000000000000000000000000000aa' }], 5);
  const logs2 = await b.ask('eth_subscribe', ['logs', { address: '0x00000000000000000000000000000000000000AA' }], 6);
  expect(typeof logs1.result).toBe('string');
  expect(logs2.result).not.toBe(logs1.result);
  expect(await gauge(g, 'xone_gateway_ws_upstream_subscriptions')).toBe(2);
  expect((await a.ask('eth_chainId', [], 7)).result).toBe('0x539');
  // A client's own cap on subscriptions (3 here).
  await b.ask('eth_subscribe', ['newPendingTransactions'], 8);
  expect((await b.ask('eth_subscribe', ['logs', {}], 9)).error).toMatchObject({ code: -32005 });
  // A batch mixing a subscription and a call is answered as one array in request order.
  a.ws.send(JSON.stringify([call('eth_subscribe', ['newHeads'], 10), call('eth_chainId', [], 11)]));
  await until(() => a.got.some((m) => Array.isArray(m)));
  const batch = a.got.find((m) => Array.isArray(m)) as unknown as Msg[];
  expect(batch.map((m) => m.id)).toEqual([10, 11]);
  expect(typeof batch[0]?.result).toBe('string');

  // Client close cleans up: every upstream subscription is unsubscribed once nobody holds it.
  await Promise.all(clients.map((c) => new Promise((r) => (c.ws.once('close', r), c.ws.close()))));
  await until(async () => (await gauge(g, 'xone_gateway_ws_client_subscriptions')) === 0, 5_000);
  expect(await gauge(g, 'xone_gateway_ws_upstream_subscriptions')).toBe(0);
}, 90_000);

test('behavior: a lost upstream socket is re-subscribed: the client keeps its subscription id, notifications resume, a log line records the gap', async () => {
  const c = await client(viaProxy.url);
  const id = (await c.ask('eth_subscribe', ['newHeads'], 1)).result as string;
  expect(typeof id).toBe('string');
  await until(() => c.got.find((m) => m.method === 'eth_subscription'), 15_000);
  let closed: number | undefined;
  c.ws.once('close', (code) => (closed = code));
  proxy.setDown(true);
  await new Promise((r) => setTimeout(r, 1_500));
  const before = c.got.length;
  proxy.setDown(false);
  await until(() => c.got.slice(before).find((m) => m.method === 'eth_subscription'), 30_000, 100);
  expect(c.got.filter((m) => m.method === 'eth_subscription').every((m) => m.params?.subscription === id)).toBe(true);
  expect(closed).toBeUndefined();
  const line = viaProxy.lines.find((l) => l.event === 'ws_resubscribed');
  expect(line).toMatchObject({ params: ['newHeads'], clients: 1, upstream_index: 0 });
  expect(Number(line?.gap_ms)).toBeGreaterThan(0);
  c.ws.close();
}, 60_000);

test('behavior: the core itself restarted (same port): subscriptions come back under the same ids, no client is closed', async () => {
  const first = await startDevNode(['--period', '1']);
  const port = new URL(first.url).port;
  const gw = await startTestGateway(
    testConfig({
      upstreams: [{ url: first.url, wsUrl: first.wsUrl }],
      tiers: { anonymous: { ratePerSec: 10_000, burst: 10_000 }, default: { ratePerSec: 100, burst: 100 } },
      head: { pollMs: 60_000, newHeads: false },
      health: { intervalMs: 200 },
    }),
  );
  let second: DevNode | undefined;
  try {
    const clients = await Promise.all([client(gw.url), client(gw.url)]);
    const ids = await Promise.all(clients.map(async (c) => (await c.ask('eth_subscribe', ['newHeads'], 1)).result as string));
    await until(() => clients.every((c) => c.got.some((m) => m.method === 'eth_subscription')), 15_000);
    const closes: number[] = [];
    for (const c of clients) c.ws.once('close', (code) => closes.push(code));
    await first.stop();
    const marks = clients.map((c) => c.got.length);
    second = await startDevNode(['--period', '1', '--http.port', port]);
    await until(() => clients.every((c, i) => c.got.slice(marks[i]).some((m) => m.method === 'eth_subscription')), 30_000, 100);
    clients.forEach((c, i) =>
      expect(c.got.filter((m) => m.method === 'eth_subscription').every((m) => m.params?.subscription === ids[i])).toBe(true),
    );
    expect(closes).toEqual([]);
    expect(gw.lines.filter((l) => l.event === 'ws_resubscribed')).toHaveLength(1);
    for (const c of clients) c.ws.close();
  } finally {
    await gw.close();
    await second?.stop();
    await first.stop();
  }
}, 150_000);
