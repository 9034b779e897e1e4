import { afterAll, beforeAll, expect, test } from 'vitest';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startFaultProxy, type FaultProxy } from './support/faultProxy.ts';
import { call, post, startTestGateway, testConfig, type TestGateway } from './support/gateway.ts';

// Issue #17: "client batches forwarded as upstream batches (today a batch of 100 becomes 100 upstream calls)".
// A real dev node; the gateway's own upstream request counter says how many requests reached it.
let node: DevNode;
let proxy: FaultProxy;
const started: TestGateway[] = [];

async function gw(upstreams: string[]): Promise<TestGateway> {
  // No cache and no probes: every call needs the upstream, and only the calls under test reach it.
  const tiers = {
    anonymous: { ratePerSec: 1000, burst: 1000, denyMethods: [] },
    default: { ratePerSec: 100, burst: 200, denyMethods: [] },
  };
  const g = await startTestGateway(testConfig({ upstreams, tiers, cache: { enabled: false } }), { start: false });
  started.push(g);
  return g;
}

/** xone_gateway_upstream_requests_total summed over statuses, for one upstream. */
async function upstreamRequests(g: TestGateway, name: string): Promise<number> {
  const text = await g.metricsText();
  const re = new RegExp(`^xone_gateway_upstream_requests_total\\{upstream="${name}",status="[^"]+"\\} (\\d+)$`, 'gm');
  let n = 0;
  for (const m of text.matchAll(re)) n += Number(m[1]);
  return n;
}

beforeAll(async () => {
  node = await startDevNode();
  proxy = await startFaultProxy(node.url);
}, 90_000);
afterAll(async () => {
  for (const g of started) await g.close();
  await proxy?.stop();
  await node?.stop();
});

const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;

test('behavior: a client batch of 42 reads reaches the upstream as one batch, answered exactly as the node answers it', async () => {
  const g = await gw([node.url]);
  const batch = [
    ...Array.from({ length: 40 }, (_, i) => call('eth_getBalance', [address(i), 'latest'], i)),
    call('eth_chainId', [], 'chain'),
    call('eth_getBlockByNumber', ['0x0', false], 'genesis'),
  ];
  const before = await upstreamRequests(g, 'u0');
  const r = await post(g.url, batch);
  expect(r.status).toBe(200);
  expect(await upstreamRequests(g, 'u0')).toBe(before + 1);
  const direct = await post(node.url, batch);
  expect(r.body).toEqual(direct.body);
  // Every call still has its own log line, naming the upstream that answered.
  const rid = r.headers.get('x-request-id');
  const lines = g.lines.filter((l) => l.request_id === rid);
  expect(lines).toHaveLength(42);
  expect(new Set(lines.map((l) => l.upstream))).toEqual(new Set(['u0']));
});

test('behavior: a transaction in a batch goes alone (sent once, with its own rules); the reads still share one request', async () => {
  const g = await gw([node.url]);
  const batch = [
    call('eth_chainId', [], 1),
    call('eth_sendRawTransaction', ['0x00'], 2),
    call('eth_getBalance', [address(1), 'latest'], 3),
  ];
  const before = await upstreamRequests(g, 'u0');
  const r = await post(g.url, batch);
  expect(await upstreamRequests(g, 'u0')).toBe(before + 2);
  const body = r.body as { id: number; result?: unknown; error?: { code: number } }[];
  expect(body.map((x) => x.id)).toEqual([1, 2, 3]);
  expect(body[0]).toMatchObject({ result: '0x539' });
  expect(body[1]!.error).toBeDefined();
  expect(body[2]).toHaveProperty('result');
});

test('error: an upstream batch that fails as a whole (connection cut) is answered call by call on another upstream, nothing lost', async () => {
  proxy.setDown(true);
  try {
    const g = await gw([proxy.url, node.url]);
    const batch = Array.from({ length: 10 }, (_, i) => call('eth_getBalance', [address(i), 'latest'], i));
    const direct = await post(node.url, batch);
    // Several rounds: the least-loaded pick sends some batches to the dead upstream first.
    for (let round = 0; round < 4; round++) {
      const r = await post(g.url, batch);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(direct.body);
    }
  } finally {
    proxy.setDown(false);
  }
});

test('behavior: a call of any kind whose request never left (connection refused) is sent to another upstream', async () => {
  // Nothing listens on port 1: eth_newBlockFilter (never retried after a failure that may have reached a node) is
  // still safe to send elsewhere.
  const g = await gw(['http://127.0.0.1:1', node.url]);
  for (let i = 0; i < 6; i++) {
    const r = await post(g.url, call('eth_newBlockFilter', [], i));
    expect(r.body).toMatchObject({ result: expect.stringMatching(/^0x01/) });
  }
});

test('behavior: eth_getLogs over a range wider than limits.getLogsSplitBlocks goes out as ranges at once (at most 16), joined in order', async () => {
  const tiers = {
    anonymous: { ratePerSec: 1000, burst: 1000, denyMethods: [] },
    default: { ratePerSec: 100, burst: 200, denyMethods: [] },
  };
  const g = await startTestGateway(
    testConfig({ upstreams: [node.url], tiers, cache: { enabled: false }, limits: { getLogsSplitBlocks: 1 } }),
    {
      start: false,
    },
  );
  started.push(g);
  const head = (await post(node.url, call('eth_blockNumber'))).body as { result: string };
  // The dev node has made a block or more by now (one-block ranges: every block its own request).
  const to = Math.min(parseInt(head.result, 16), 6);
  expect(to).toBeGreaterThanOrEqual(1);
  const filter = { fromBlock: '0x0', toBlock: `0x${to.toString(16)}` };
  const before = await upstreamRequests(g, 'u0');
  const r = await post(g.url, call('eth_getLogs', [filter]));
  expect(r.body).toEqual((await post(node.url, call('eth_getLogs', [filter]))).body);
  expect(await upstreamRequests(g, 'u0')).toBe(before + to + 1);
  // Within the size, by block hash, or with tags: one request as sent.
  const one = await upstreamRequests(g, 'u0');
  await post(g.url, call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1' }]));
  await post(g.url, call('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]));
  expect(await upstreamRequests(g, 'u0')).toBe(one + 2);
  // A chunk's error is the call's error (no partial list): a range past the head is what the node says of it.
  const bad = await post(g.url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xffffff' }]));
  const direct = await post(node.url, call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xffffff' }]));
  expect('error' in (bad.body as object)).toBe('error' in (direct.body as object));
});
