import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { ADMIN_TOKEN, call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// Per-key usage accounting (issue #17 "what hosted providers offer"): two instances on one real Redis in front of a
// real dev node. A key's calls over HTTP (single, batch, /v1/<key>, X-Api-Key) and WebSocket (calls and delivered
// notifications), admitted and refused, on both instances, are read back by the key holder (GET /usage) and the
// admin (GET /keys/:id/usage), survive a restart of the gateways, and feed per-tier (never per-key) Prometheus series.
let redis: TestRedis;
let node: DevNode;
let a: TestGateway;
let b: TestGateway;
const cfg = () =>
  testConfig({
    upstreams: [{ url: node.url, wsUrl: node.wsUrl }],
    redis: { url: redis.url, prefix: 'usage-test:' },
    rateLimit: { backend: 'redis', backendTimeoutMs: 5_000 },
    // A bucket that barely refills: the last batch is partly refused.
    tiers: { anonymous: { ratePerSec: 10, burst: 20, denyMethods: [] }, default: { ratePerSec: 0.2, burst: 40, denyMethods: [] } },
  });

beforeAll(async () => {
  redis = await startRedis();
  node = await startDevNode(['--period', '1']);
  a = await startTestGateway(cfg());
  b = await startTestGateway(cfg());
}, 90_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await node?.stop();
  await redis?.stop();
});

type Counts = { calls: number; computeUnits: number; refused: number };
type Report = {
  keyId: string;
  tier: string;
  from: string;
  to: string;
  total: Counts;
  days: { date: string; methods: Record<string, Counts> }[];
};

async function getUsage(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Report & { error?: { code: number; message: string } } }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as Report & { error?: { code: number; message: string } } };
}

test('behavior: a key holder reads its own calls, compute units and refusals per method and day, from either instance; admins too; durable across restarts', async () => {
  const created = await fetch(`${a.adminUrl}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: '{"label":"usage"}',
  });
  const { key, record } = (await created.json()) as { key: string; record: { id: string } };
  const bearer = { authorization: `Bearer ${key}` };
  const expected: Record<string, Counts> = {};
  const count = (method: string, response: { error?: { code: number } }, cost: number) => {
    const c = (expected[method] ??= { calls: 0, computeUnits: 0, refused: 0 });
    c.calls++;
    if (response.error?.code === -32005) c.refused++;
    else c.computeUnits += cost;
  };

  // WebSocket on A: one call, a newHeads subscription until one notification arrived, then closed.
  const ws = new WebSocket(`${a.url.replace('http', 'ws')}/`, { headers: bearer });
  const messages: { id?: number; method?: string; result?: unknown; error?: { code: number } }[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify(call('eth_chainId', [], 1)));
  ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 2)));
  const sub = await until(() => messages.find((m) => m.id === 2), 10_000);
  await until(() => messages.some((m) => m.method === 'eth_subscription'), 10_000);
  ws.send(JSON.stringify(call('eth_unsubscribe', [sub.result], 3)));
  await until(() => messages.find((m) => m.id === 3), 10_000);
  ws.close();
  await new Promise((r) => ws.once('close', r));
  for (const id of [1, 2, 3])
    count(
      ['eth_chainId', 'eth_subscribe', 'eth_unsubscribe'][id - 1] as string,
      messages.find((m) => m.id === id)!,
      1,
    );
  const notifications = messages.filter((m) => m.method === 'eth_subscription').length;

  // HTTP on A (batch, Bearer) and B (X-Api-Key; eth_getLogs weighs 20).
  const batch = [call('eth_chainId', [], 10), call('eth_chainId', [], 11), call('eth_getBalance', ['0x' + '11'.repeat(20), 'latest'], 12)];
  const r1 = await post(a.url, batch, bearer);
  (r1.body as { error?: { code: number } }[]).forEach((r, i) => count(batch[i]!.method, r, 1));
  const r2 = await post(b.url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x0' }]), { 'x-api-key': key });
  count('eth_getLogs', r2.body as { error?: { code: number } }, 20);
  // /v1/<key> on B: 30 calls against what is left of the burst of 40: the tail is refused (-32005).
  const big = Array.from({ length: 30 }, (_, i) => call('eth_chainId', [], 100 + i));
  const r3 = await post(`${b.url}/v1/${key}`, big);
  (r3.body as { error?: { code: number } }[]).forEach((r) => count('eth_chainId', r, 1));
  expect(expected.eth_chainId!.refused).toBeGreaterThan(0);

  const today = new Date().toISOString().slice(0, 10);
  const matches = (report: Report) => {
    const day = report.days.at(-1)!;
    const { eth_subscription: subs, ...rest } = day.methods;
    return day.date === today &&
      JSON.stringify(rest) === JSON.stringify(Object.fromEntries(Object.entries(expected).sort())) &&
      subs?.calls !== undefined &&
      subs.calls >= notifications
      ? day
      : undefined;
  };
  // A flushes its counts once a second: B sees them within a few seconds.
  let seen: (Report & { error?: unknown }) | undefined;
  await until(
    async () => {
      const r = await getUsage(`${b.url}/usage`, bearer);
      seen = r.body;
      return r.status === 200 ? matches(r.body) : undefined;
      // Polled as a dashboard would (reads have their own bucket: 10, then 1/s).
    },
    15_000,
    500,
  ).catch(() => {
    throw new Error(`usage never matched: ${JSON.stringify({ expected, notifications, seen: seen?.error ?? seen?.days.at(-1) })}`);
  });
  // A notification in flight when the socket closed may be counted a moment later: once A's next flush is in, the
  // counts are final and every later read must give exactly them.
  await new Promise((r) => setTimeout(r, 1_500));
  const settled = await getUsage(`${b.url}/usage`, bearer);
  expect(settled.status).toBe(200);
  expect(matches(settled.body)).toBeDefined();
  const day = settled.body.days.at(-1)!;
  expect(seen!.days).toHaveLength(30);
  expect(seen).toMatchObject({ keyId: record.id, tier: 'default', to: today });
  // Notifications delivered are charged at eth_subscription's weight (1); one may have been in flight at close.
  expect(day.methods.eth_subscription!.calls).toBeLessThanOrEqual(notifications + 1);
  expect(day.methods.eth_subscription!.computeUnits).toBe(day.methods.eth_subscription!.calls);

  // The same through the path form and a short window; the admin sees the same report.
  const viaPath = await getUsage(`${a.url}/v1/${key}/usage?days=7`);
  expect(viaPath.status).toBe(200);
  expect(viaPath.body.days).toHaveLength(7);
  const admin = await getUsage(`${a.adminUrl}/keys/${record.id}/usage`, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect(admin.status).toBe(200);
  expect(admin.body.days.at(-1)).toEqual(day);

  // Per tier in Prometheus, never per key.
  const metrics = await a.metricsText();
  expect(metrics).toMatch(/xone_gateway_usage_compute_units_total\{tier="default"\} [1-9]/);
  expect(metrics).toMatch(/xone_gateway_usage_calls_total\{tier="default",outcome="admitted"\} [1-9]/);
  expect(metrics).not.toContain(record.id);
  // WebSocket calls have their own log lines, as HTTP calls do.
  expect(a.lines.find((l) => l.transport === 'ws' && l.method === 'eth_chainId' && l.key_id === record.id)).toMatchObject({
    rpc_error_code: null,
    http_status: null,
  });

  // Both instances stop (flushing what they hold) and a new one reads the same from Redis.
  await a.close();
  await b.close();
  a = await startTestGateway(cfg());
  b = await startTestGateway(cfg());
  const after = await getUsage(`${a.url}/usage?days=1`, bearer);
  expect(after.status).toBe(200);
  // This read itself is charged to the bucket but is no JSON-RPC call: the counts are unchanged.
  expect(after.body.days).toEqual([day]);
}, 90_000);

test('error: /usage needs a key (401 -32000), a valid window (400 -32602 naming days), and an admin token for other keys', async () => {
  const keyless = await getUsage(`${a.url}/usage`);
  expect(keyless.status).toBe(401);
  expect(keyless.body.error).toMatchObject({ code: -32000, message: expect.stringContaining('API key') });
  const bad = await getUsage(`${a.url}/usage`, { authorization: 'Bearer xk_nope_nope' });
  expect(bad.status).toBe(401);
  const created = await fetch(`${a.adminUrl}/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: '{}' });
  const { key, record } = (await created.json()) as { key: string; record: { id: string } };
  for (const days of ['0', '36', 'abc', '1.5', '-1']) {
    const r = await getUsage(`${a.url}/usage?days=${days}`, { authorization: `Bearer ${key}` });
    expect(r.status, days).toBe(400);
    expect(r.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('days') });
  }
  // A fresh key has 30 days of zeros.
  const fresh = await getUsage(`${a.url}/usage`, { authorization: `Bearer ${key}` });
  expect(fresh.body.total).toEqual({ calls: 0, computeUnits: 0, refused: 0 });
  expect((await fetch(`${a.adminUrl}/keys/${record.id}/usage`)).status).toBe(401);
  const unknown = await fetch(`${a.adminUrl}/keys/nope/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(unknown.status).toBe(404);
  const badDays = await fetch(`${a.adminUrl}/keys/${record.id}/usage?days=99`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(badDays.status).toBe(400);
  expect(await badDays.json()).toMatchObject({ field: 'days' });
});
