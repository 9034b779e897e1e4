import { createPublicClient, http, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// One core dev node (`xone run --dev`, a block a second) behind one gateway for the whole file.
let node: DevNode;
let g: TestGateway;
/** Dev mnemonic account 5: no other test in this file sends from it. */
const DEV_KEY_5 = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';

beforeAll(async () => {
  node = await startDevNode(['--period', '1']);
  g = await startTestGateway(
    testConfig({
      upstreams: [{ url: node.url, wsUrl: node.wsUrl }],
      // One token refilled every 4 s: a loaded machine cannot refill the bucket between two back-to-back calls.
      tiers: {
        anonymous: { ratePerSec: 0.25, burst: 1, denyMethods: ['debug_*'] },
        default: { ratePerSec: 100, burst: 100, denyMethods: [] },
      },
      identity: { trustedProxies: ['127.0.0.1/32'] },
      // A transaction fits the 1-token bucket (its default weight is 5).
      rateLimit: { costs: { eth_sendRawTransaction: 1 } },
      // Polling once a minute: a new block can only reach the head tracker through the newHeads feed.
      head: { pollMs: 60_000 },
      limits: { maxWsPerIp: 2 },
    }),
  );
  await until(() => g.gateway.tracker.state !== undefined, 20_000);
}, 90_000);
afterAll(async () => {
  await g?.close();
  await node?.stop();
});

// Each test uses its own client address (through the trusted proxy) so the 1-token buckets do not interfere.
const from = (ip: string) => ({ 'x-forwarded-for': ip });

test('behavior: Retry-After is honoured by viem retry (one refusal, then success after the announced wait)', async () => {
  const client = createPublicClient({
    transport: http(g.url, { retryCount: 3, retryDelay: 50, fetchOptions: { headers: from('192.0.2.10') } }),
  });
  const addr = '0x00000000000000000000000000000000000000aa';
  expect(await client.getBalance({ address: addr })).toBe(0n);
  const t0 = performance.now();
  expect(await client.getTransactionCount({ address: addr })).toBe(0);
  const waited = performance.now() - t0;
  const refusals = g.lines.filter((l) => l.ip === '192.0.2.0/24' && l.rpc_error_code === -32005);
  // viem's own backoff (50, 100, 200 ms) would have been refused again several times; Retry-After (up to 4 s) is one wait.
  expect(refusals).toHaveLength(1);
  expect(refusals[0]).toMatchObject({ http_status: 429, limiter: { decision: 'deny', scope: 'ip', cost: 1 } });
  expect(waited).toBeGreaterThanOrEqual(900);
});

test('behavior: WebSocket subscriptions are proxied and every client message is metered', async () => {
  const ws = new WebSocket(`${g.url.replace('http', 'ws')}/`, { headers: from('192.0.2.20') });
  const messages: {
    id?: number;
    method?: string;
    result?: unknown;
    error?: { code: number };
    params?: { result: { number: string; hash: string } };
  }[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)));
  const sub = await until(() => messages.find((m) => m.id === 1));
  expect(typeof sub.result).toBe('string');
  // The anonymous bucket holds 1 token: the next message is refused locally with -32005, a denied method with -32004.
  ws.send(JSON.stringify(call('eth_chainId', [], 2)));
  ws.send(JSON.stringify(call('debug_traceTransaction', ['0x00'], 3)));
  expect((await until(() => messages.find((m) => m.id === 2))).error?.code).toBe(-32005);
  expect((await until(() => messages.find((m) => m.id === 3))).error?.code).toBe(-32004);
  // The core produces a block a second: its newHeads notification comes through the proxy.
  const head = await until(() => messages.find((m) => m.method === 'eth_subscription'), 15_000);
  const n = parseInt(head.params?.result.number ?? '', 16);
  expect(n).toBeGreaterThan(0);
  // The gateway's own newHeads feed moved its head tracker (polling is once a minute here).
  await until(() => (g.gateway.tracker.state?.latest ?? -1) >= n, 10_000);
  expect(g.gateway.tracker.hashAt(n)).toBe(head.params?.result.hash.toLowerCase());
  ws.close();
  expect(await g.metricsText()).toMatch(/xone_gateway_ws_messages_total\{direction="in"\} 3/);
});

test('behavior: finalized blocks are cached by number; blocks beyond the head and errors never are', async () => {
  // A fresh client address per request: this test is about the cache, not the 1-token anonymous bucket.
  let n = 40;
  const ask = (c: unknown) => post(g.url, c, from(`192.0.2.${n++}`));
  const genesis = await ask(call('eth_getBlockByNumber', ['0x0', false]));
  expect((genesis.body as { result: { number: string } }).result.number).toBe('0x0');
  const again = await ask(call('eth_getBlockByNumber', ['0x0', false]));
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(again.body).toEqual(genesis.body);
  // Far beyond the head: answered null by the core each time, never stored.
  for (let i = 0; i < 2; i++)
    expect((await ask(call('eth_getBlockByNumber', ['0xfffffff', false], 'far'))).body).toMatchObject({ id: 'far', result: null });
  // The core refuses a malformed address: the error is passed on and not cached.
  for (let i = 0; i < 2; i++)
    expect((await ask(call('eth_getBalance', ['0x1234', '0x0'], 'bad'))).body).toMatchObject({ id: 'bad', error: { code: -32602 } });
  // Every one of those four went to the core (upstream u0), none came from the cache.
  const far = g.lines.filter((l) => l.block_ref === '0xfffffff');
  expect(far.map((l) => [l.cache, l.upstream])).toEqual([
    ['none', 'u0'],
    ['none', 'u0'],
  ]);
  const bad = g.lines.filter((l) => l.method === 'eth_getBalance' && l.rpc_error_code !== null);
  expect(bad.map((l) => [l.cache, l.upstream, l.rpc_error_code])).toEqual([
    ['miss', 'u0', -32602],
    ['miss', 'u0', -32602],
  ]);
});

test('behavior: eth_sendRawTransaction resent, pending or mined since: the core refuses it ("already known", "nonce too low"), the gateway answers the hash', async () => {
  const account = privateKeyToAccount(DEV_KEY_5);
  const raw = await account.signTransaction({
    chainId: 1337,
    type: 'eip1559',
    nonce: 0,
    to: '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
  const first = await post(g.url, call('eth_sendRawTransaction', [raw], 1), from('192.0.2.60'));
  const hash = (first.body as { result: string }).result;
  expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
  // Straight to the core, the resend is an error; through the gateway it is the same success (never a blind retry).
  const direct = await post(node.url, call('eth_sendRawTransaction', [raw], 2));
  expect(direct.body).toMatchObject({ error: { message: expect.stringMatching(/already known|nonce too low/) } });
  const second = await post(g.url, call('eth_sendRawTransaction', [raw], 3), from('192.0.2.61'));
  expect(second.body).toMatchObject({ id: 3, result: hash });
  // Once mined (a block a second), the core no longer calls it known but "nonce too low": still the same success.
  await until(
    async () => ((await post(node.url, call('eth_getTransactionReceipt', [hash]))).body as { result: unknown }).result,
    20_000,
    100,
  );
  expect((await post(node.url, call('eth_sendRawTransaction', [raw], 4))).body).toMatchObject({ error: { message: /nonce too low/ } });
  const mined = await post(g.url, call('eth_sendRawTransaction', [raw], 5), from('192.0.2.62'));
  expect(mined.body).toMatchObject({ id: 5, result: hash });
});

test('behavior: reads pass through to the node; eth_blockNumber follows the head; HTTP 503 -32002 when no upstream is healthy', async () => {
  const r = await post(g.url, call('eth_chainId'), from('192.0.2.30'));
  expect(r.body).toMatchObject({ result: '0x539' });
  // A block a second: the head may move while the answer travels, so it is bounded by the head before and after.
  const before = g.gateway.tracker.state?.latest ?? -1;
  const bn = await post(g.url, call('eth_blockNumber'), from('192.0.2.31'));
  const served = parseInt((bn.body as { result: string }).result, 16);
  expect(served).toBeGreaterThanOrEqual(before);
  expect(served).toBeLessThanOrEqual(g.gateway.tracker.state?.latest ?? -1);
  const down = await startTestGateway(testConfig({ upstreams: ['http://127.0.0.1:9'], health: { intervalMs: 50 } }));
  try {
    await until(() => down.gateway.pool.unfitReason(down.gateway.pool.upstreams[0]!) !== undefined, 5_000);
    const refused = await post(down.url, call('eth_chainId'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toMatchObject({ error: { code: -32002 } });
  } finally {
    await down.close();
  }
});

// Issue #17 item 8 (part): open WebSockets are capped per keyless address (and per key) on each instance.
test('behavior: a third WebSocket from one address is refused with 429 -32005; closing one frees a slot', async () => {
  const open = (ip: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${g.url.replace('http', 'ws')}/`, { headers: from(ip) });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  const first = await open('192.0.2.80');
  const second = await open('192.0.2.80');
  await expect(open('192.0.2.80')).rejects.toThrow('HTTP 429');
  // Another address has its own allowance.
  const elsewhere = await open('192.0.2.81');
  first.close();
  await until(
    async () =>
      open('192.0.2.80')
        .then((ws) => (ws.close(), true))
        .catch(() => false),
    5_000,
  );
  second.close();
  elsewhere.close();
  expect(await g.metricsText()).toMatch(/xone_gateway_connections_refused_total\{reason="ws_per_ip"\} [1-9]/);
});
