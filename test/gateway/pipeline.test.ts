import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { call, post, startTestGateway, testConfig, type TestGateway } from './support/gateway.ts';

// One core dev node for the file, one memory-limited gateway per scenario (real HTTP on 127.0.0.1).
let node: DevNode;
const started: TestGateway[] = [];

async function gw(raw: Record<string, unknown>, honoOnly = false): Promise<TestGateway> {
  const g = await startTestGateway(testConfig({ upstreams: [node.url], ...raw }), { start: false, honoOnly });
  started.push(g);
  return g;
}

beforeAll(async () => {
  node = await startDevNode();
}, 90_000);
afterAll(async () => {
  for (const g of started) await g.close();
  await node?.stop();
});

// Both servers of the Node adapter: the node:http fast path (default) and the Hono routes (as on Workers) run the
// same pipeline function and must answer alike.
describe.each([
  { server: 'node:http fast path', honoOnly: false },
  { server: 'Hono routes', honoOnly: true },
])('parse and limits ($server)', ({ honoOnly }) => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await gw({ limits: { maxBodyBytes: 4096, maxBatchSize: 5, maxDepth: 6 } }, honoOnly);
  });

  test('behavior: X-Request-Id on the answer and in the call log; /v1/<key> with an unknown key is 401', async () => {
    const r = await post(g.url, call('eth_chainId', [], 'rid'));
    expect(r.status).toBe(200);
    const id = r.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body).toMatchObject({ id: 'rid', result: '0x539' });
    expect(g.lines.find((l) => l.request_id === id)).toMatchObject({ method: 'eth_chainId', http_status: 200, cache: expect.any(String) });
    const keyed = await post(`${g.url}/v1/not-a-key`, call('eth_chainId'));
    expect(keyed.status).toBe(401);
    expect(keyed.body).toMatchObject({ error: { code: -32000 } });
    expect((await fetch(`${g.url}/health`)).status).toBe(200);
  });

  test('error: body over the limit is 413', async () => {
    const r = await post(g.url, call('eth_call', ['x'.repeat(5000)]));
    expect(r.status).toBe(413);
    expect((r.body as { error: { code: number } }).error.code).toBe(-32600);
  });
  test('error: empty batch is -32600', async () => {
    const r = await post(g.url, []);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ id: null, error: { code: -32600 } });
  });
  test('error: batch over maxBatchSize is refused whole', async () => {
    const r = await post(
      g.url,
      Array.from({ length: 6 }, (_, i) => call('eth_chainId', [], i)),
    );
    expect(r.status).toBe(400);
    expect((r.body as { error: { message: string } }).error.message).toMatch(/batch of 6 exceeds 5/);
  });
  test('error: JSON nested too deep', async () => {
    const r = await post(g.url, call('eth_call', [[[[[[[[1]]]]]]]]));
    expect(r.status).toBe(400);
    expect((r.body as { error: { message: string } }).error.message).toMatch(/deeper than 6/);
  });
  test('error: not JSON is -32700', async () => {
    const r = await post(g.url, '{nope');
    expect(r.body).toMatchObject({ error: { code: -32700 } });
  });
  test('behavior: batch order is preserved, malformed and denied elements answered in place', async () => {
    const r = await post(g.url, [
      call('web3_sha3', ['0x'], 'a'),
      { id: 'b' },
      call('debug_traceTransaction', [], 'c'),
      call('admin_peers', [], 'd'),
      call('net_listening', [], 'e'),
    ]);
    expect(r.status).toBe(200);
    const body = r.body as { id: string; result?: unknown; error?: { code: number } }[];
    expect(body.map((x) => x.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // keccak-256 of the empty string, computed by the core.
    expect(body[0]?.result).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(body[1]?.error?.code).toBe(-32600);
    expect(body[2]?.error?.code).toBe(-32004);
    expect(body[3]?.error?.code).toBe(-32004);
    expect(body[4]?.result).toBe(true);
  });
});

describe('rate buckets', () => {
  test('behavior: a batch of 1,000 is charged 1,000; the next is partly admitted (200, per-element -32005); then 429', async () => {
    const g = await gw({
      limits: { maxBatchSize: 1000 },
      tiers: { anonymous: { ratePerSec: 0.01, burst: 1500, denyMethods: [] }, default: { ratePerSec: 1, burst: 100, denyMethods: [] } },
    });
    const batch = (offset: number) => Array.from({ length: 1000 }, (_, i) => call('eth_chainId', [], offset + i));
    const t0 = performance.now();
    const first = await post(g.url, batch(0));
    expect(first.status).toBe(200);
    expect((first.body as { result?: unknown }[]).every((x) => x.result !== undefined)).toBe(true);
    const second = await post(g.url, batch(1000));
    expect(second.status).toBe(200);
    const body = second.body as { id: number; result?: unknown; error?: { code: number; data: Record<string, number | string> } }[];
    const admitted = body.filter((x) => x.result !== undefined).length;
    // 1500 − 1000 plus what refilled at 0.01/s meanwhile.
    const refilled = Math.ceil((performance.now() - t0) / 100_000);
    expect(admitted).toBeGreaterThanOrEqual(500);
    expect(admitted).toBeLessThanOrEqual(500 + refilled);
    // Admitted is a prefix, refusals carry the contract's data.
    expect(body.slice(0, admitted).every((x) => x.result !== undefined)).toBe(true);
    const refused = body[admitted];
    expect(refused?.error?.code).toBe(-32005);
    expect(refused?.error?.data).toMatchObject({ scope: 'ip', limit: 1500, cost: 1 });
    expect(Number(refused?.error?.data.retryAfterMs)).toBeGreaterThan(0);
    const third = await post(g.url, call('web3_clientVersion', [], 'x'));
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(third.headers.get('ratelimit-policy')).toMatch(/"ip";q=1500;w=150000/);
    expect(third.headers.get('ratelimit')).toMatch(/"ip";r=0;t=\d+/);
    expect(third.body).toMatchObject({
      id: 'x',
      error: { code: -32005, message: 'limit exceeded', data: { scope: 'ip', limit: 1500, remaining: 0, cost: 1 } },
    });
    const refusedLine = g.lines.find((l) => (l.limiter as { decision: string }).decision === 'deny');
    expect(refusedLine).toMatchObject({ rpc_error_code: -32005, http_status: 200, method: 'eth_chainId' });
    // One call to the core for all the identical admitted calls: the rest joined it in flight or hit the cache.
    const admittedLines = g.lines.filter((l) => l.method === 'eth_chainId' && l.rpc_error_code === null);
    expect(admittedLines).toHaveLength(1000 + admitted);
    expect(admittedLines.filter((l) => l.cache === 'miss').map((l) => l.upstream)).toEqual(['u0']);
    expect(admittedLines.every((l) => l.cache === 'miss' || l.cache === 'hit' || l.cache === 'coalesced')).toBe(true);
  });

  test('behavior: method weights are charged (eth_getLogs costs 20)', async () => {
    const g = await gw({
      tiers: { anonymous: { ratePerSec: 0.001, burst: 50, denyMethods: [] }, default: { ratePerSec: 1, burst: 50, denyMethods: [] } },
    });
    const logs = (id: number) => call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x0' }], id);
    const r = await post(g.url, [logs(1), logs(2), logs(3)]);
    const body = r.body as { error?: { code: number; data: { cost: number } } }[];
    expect(body[2]?.error).toMatchObject({ code: -32005, data: { cost: 20 } });
    expect(body[1]?.error, JSON.stringify(body)).toBeUndefined();
  });

  test('regression: forged X-Forwarded-For does not escape the per-IP bucket', async () => {
    const g = await gw({
      identity: { trustedProxies: ['127.0.0.1/32'] },
      tiers: { anonymous: { ratePerSec: 0.001, burst: 10, denyMethods: [] }, default: { ratePerSec: 1, burst: 10, denyMethods: [] } },
    });
    // A trusted proxy appends the real client (203.0.113.7); the client forges whatever it likes to the left.
    let admitted = 0;
    for (let i = 0; i < 30; i++) {
      const r = await post(g.url, call('net_version'), { 'x-forwarded-for': `10.0.${i}.1, 198.51.100.${i}, 203.0.113.7` });
      if (r.status === 200) admitted++;
    }
    expect(admitted).toBe(10);
    // IPv6 clients rotating inside their /64 share one bucket too.
    let v6 = 0;
    for (let i = 1; i <= 15; i++)
      if ((await post(g.url, call('net_version'), { 'x-forwarded-for': `2001:db8:1:2::${i.toString(16)}` })).status === 200) v6++;
    expect(v6).toBe(10);
    const line = g.lines.find((l) => l.ip === '203.0.113.0/24');
    expect(line).toBeDefined();
  });
});
