import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { ADMIN_TOKEN, call, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// Issue #17 item 8 (the rest): WebSocket calls and notifications are metered and logged like HTTP calls, and open
// sockets are capped per key. One real core dev node (a block a second) behind one gateway; keys in a real Redis.
let node: DevNode;
let redis: TestRedis;
let g: TestGateway;

beforeAll(async () => {
  [node, redis] = await Promise.all([startDevNode(['--period', '1']), startRedis()]);
  g = await startTestGateway(
    testConfig({
      upstreams: [{ url: node.url, wsUrl: node.wsUrl }],
      redis: { url: redis.url, prefix: 'ws-metering:' },
      // 4 tokens, refilled once in 100 s: what a socket may spend is counted exactly.
      tiers: { anonymous: { ratePerSec: 0.01, burst: 4 }, default: { ratePerSec: 1_000, burst: 1_000 } },
      limits: { maxWsPerKey: 1 },
      head: { pollMs: 60_000 },
    }),
  );
}, 90_000);
afterAll(async () => {
  await g?.close();
  await node?.stop();
  await redis?.stop();
});

interface Msg {
  id?: number;
  result?: unknown;
  error?: { code: number };
  method?: string;
}

/** Opens a client socket on `path`, collecting what it receives. */
async function open(path = '/'): Promise<{ ws: WebSocket; got: Msg[] }> {
  const ws = new WebSocket(`${g.url.replace('http', 'ws')}${path}`);
  const got: Msg[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString()) as Msg));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return { ws, got };
}

test('behavior: notifications are charged to the caller bucket and every WebSocket call gets a log line (transport ws)', async () => {
  const { ws, got } = await open();
  ws.send(JSON.stringify(call('eth_chainId', [], 1)));
  ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 2)));
  expect((await until(() => got.find((m) => m.id === 1))).result).toBe('0x539');
  expect(typeof (await until(() => got.find((m) => m.id === 2))).result).toBe('string');
  // Two calls spent 2 of the 4 tokens; two notifications spend the other 2 (charged after delivery).
  await until(() => got.filter((m) => m.method === 'eth_subscription').length >= 2, 15_000);
  await new Promise((r) => setTimeout(r, 100));
  ws.send(JSON.stringify(call('eth_chainId', [], 3)));
  // Without the notifications' charge the bucket would still hold 2 tokens.
  expect((await until(() => got.find((m) => m.id === 3))).error?.code).toBe(-32005);
  ws.close();
  const wsLines = g.lines.filter((l) => l.transport === 'ws');
  expect(wsLines.map((l) => l.method)).toEqual(['eth_chainId', 'eth_subscribe', 'eth_chainId']);
  expect(wsLines.every((l) => l.http_status === null)).toBe(true);
  expect((wsLines[2]?.limiter as { decision?: string } | undefined)?.decision).toBe('deny');
  // A WebSocket call is not an HTTP response.
  expect(await g.metricsText()).not.toMatch(/xone_gateway_http_responses_total\{code="429"\}/);
});

test('behavior: a second WebSocket on one key past limits.maxWsPerKey is refused with 429; closing the first frees it', async () => {
  const res = await fetch(`${g.adminUrl}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'ws-cap' }),
  });
  const { key } = (await res.json()) as { key: string };
  const first = await open(`/v1/${key}`);
  await expect(open(`/v1/${key}`)).rejects.toThrow('HTTP 429');
  first.ws.close();
  const again = await until(
    async () =>
      open(`/v1/${key}`)
        .then((c) => c)
        .catch(() => undefined),
    5_000,
  );
  again.ws.close();
  expect(await g.metricsText()).toMatch(/xone_gateway_connections_refused_total\{reason="ws_per_key"\} [1-9]/);
});
