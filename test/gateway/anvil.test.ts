import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startAnvil, type TestAnvil } from './support/anvil.ts';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// anvil stands in for the core node until the core serves RPC (same JSON-RPC surface for these calls).
let anvil: TestAnvil;
let g: TestGateway;

beforeAll(async () => {
  anvil = await startAnvil();
  g = await startTestGateway(
    testConfig({
      upstreams: [{ url: anvil.url, wsUrl: anvil.wsUrl }],
      tiers: { anonymous: { ratePerSec: 1, burst: 1, denyMethods: ['debug_*'] }, default: { ratePerSec: 100, burst: 100, denyMethods: [] } },
      identity: { trustedProxies: ['127.0.0.1/32'] },
      // Polling once a minute: a new block can only reach the head tracker through the newHeads feed.
      head: { pollMs: 60_000 },
    }),
  );
  await until(() => g.gateway.tracker.state !== undefined, 10_000);
}, 60_000);
afterAll(async () => {
  await g?.close();
  await anvil?.stop();
});

// Each test uses its own client address (through the trusted proxy) so the 1-token buckets do not interfere.
const from = (ip: string) => ({ 'x-forwarded-for': ip });

test('behavior: Retry-After is honoured by viem retry (one refusal, then success after the announced wait)', async () => {
  const client = createPublicClient({ transport: http(g.url, { retryCount: 3, retryDelay: 50, fetchOptions: { headers: from('192.0.2.10') } }) });
  const addr = '0x00000000000000000000000000000000000000aa';
  expect(await client.getBalance({ address: addr })).toBe(0n);
  const t0 = performance.now();
  expect(await client.getTransactionCount({ address: addr })).toBe(0);
  const waited = performance.now() - t0;
  const refusals = g.lines.filter((l) => l.ip === '192.0.2.0/24' && l.rpc_error_code === -32005);
  // viem's own backoff (50, 100, 200 ms) would have been refused again several times; Retry-After: 1 is one wait.
  expect(refusals).toHaveLength(1);
  expect(refusals[0]).toMatchObject({ http_status: 429, limiter: { decision: 'deny', scope: 'ip', cost: 1 } });
  expect(waited).toBeGreaterThanOrEqual(900);
});

test('behavior: WebSocket subscriptions are proxied and every client message is metered', async () => {
  const ws = new WebSocket(`${g.url.replace('http', 'ws')}/`, { headers: from('192.0.2.20') });
  const messages: { id?: number; method?: string; result?: unknown; error?: { code: number }; params?: { result: { number: string } } }[] = [];
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
  await anvil.rpc('evm_mine');
  const head = await until(() => messages.find((m) => m.method === 'eth_subscription'));
  expect(head.params?.result.number).toBe('0x1');
  // The gateway's own newHeads feed moved its head tracker (polling is once a minute here).
  await until(() => g.gateway.tracker.state?.latest === 1, 3_000);
  expect(g.gateway.tracker.hashAt(1)).toBe((head.params?.result as unknown as { hash: string }).hash);
  ws.close();
  expect(await g.metricsText()).toMatch(/xone_gateway_ws_messages_total\{direction="in"\} 3/);
});

test('behavior: reads pass through to the node; eth_blockNumber follows the head; HTTP 503 -32002 when no upstream is healthy', async () => {
  const r = await post(g.url, call('eth_chainId'), from('192.0.2.30'));
  expect(r.body).toMatchObject({ result: '0x7a69' });
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
