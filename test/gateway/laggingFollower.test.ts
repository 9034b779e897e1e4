import { afterAll, beforeAll, expect, test } from 'vitest';
import { createNodeFetch } from '../../gateway/adapters/node/nodeFetch.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startFaultProxy, type FaultProxy } from './support/faultProxy.ts';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// Issue #17 item 2: state calls for `latest` are pinned to the newest head hash (learned from the fastest upstream)
// and were sent to a follower that had not imported it yet: `header for hash not found`, answered HTTP 200 (2.7 % in
// steady state, ~50 % while a follower lagged). A real producer (a block a second) and a real follower that syncs
// through a proxy delaying everything it receives by 1.2 s, so it is always about a block behind (within
// health.maxLagBlocks, so it stays routable), both upstreams of the gateway.
let producer: DevNode;
let follower: DevNode;
let syncLink: FaultProxy;
let g: TestGateway;
const fastFetch = createNodeFetch(64);

beforeAll(async () => {
  producer = await startDevNode(['--period', '1']);
  syncLink = await startFaultProxy(producer.url);
  syncLink.delayMs = 1_200;
  follower = await startDevNode(['--period', '1', '--peer', syncLink.url]);
  g = await startTestGateway(
    testConfig({
      upstreams: [
        { url: producer.url, wsUrl: producer.wsUrl },
        { url: follower.url, wsUrl: follower.wsUrl },
      ],
      tiers: { anonymous: { ratePerSec: 1e6, burst: 1e6 }, default: { ratePerSec: 1, burst: 1 } },
      health: { maxLagBlocks: 5 },
      log: { successSampleRate: 0 },
    }),
  );
  // Both upstreams routable and the follower behind the producer, as in the issue.
  await until(async () => g.gateway.pool.upstreams.every((u) => u.head > 3 && g.gateway.pool.unfitReason(u) === undefined), 60_000);
}, 120_000);
afterAll(async () => {
  await fastFetch.close();
  await g?.close();
  await follower?.stop();
  await syncLink?.stop();
  await producer?.stop();
});

test('behavior: 10,000 eth_getBalance(latest) with a lagging follower in the pool: no block-not-found answer', async () => {
  const [p, f] = g.gateway.pool.upstreams;
  expect(p!.head).toBeGreaterThan(f!.head - 1);
  let next = 0;
  const errors: string[] = [];
  const upstreams = new Map<string, number>();
  const worker = async () => {
    while (next < 10_000) {
      const i = next++;
      // A distinct address per call: no cache hit and no coalescing, every call is pinned and forwarded.
      const addr = `0x${(i + 1).toString(16).padStart(40, '0')}`;
      const res = await fastFetch(g.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call('eth_getBalance', [addr, 'latest'], i)),
        timeoutMs: 30_000,
      });
      const body = JSON.parse(await res.text()) as { result?: string; error?: { message: string } };
      if (res.status !== 200 || body.error) errors.push(`${res.status} ${body.error?.message}`);
    }
  };
  const lagSeen: number[] = [];
  const sampler = setInterval(() => lagSeen.push(p!.head - f!.head), 100);
  try {
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    clearInterval(sampler);
  }
  const text = await g.metricsText();
  for (const m of text.matchAll(/xone_gateway_upstream_requests_total\{upstream="(u\d)",status="200"\} (\d+)/g))
    upstreams.set(m[1]!, Number(m[2]));
  const report = JSON.stringify({
    errors: errors.slice(0, 5),
    errorCount: errors.length,
    maxLag: Math.max(...lagSeen),
    upstreams: [...upstreams],
  });
  console.log(report);
  expect(errors, report).toEqual([]);
  // The follower was behind during the run (the condition under test), and it still served calls.
  expect(Math.max(...lagSeen), report).toBeGreaterThanOrEqual(1);
  // It served what it held (it is at the head only between the producer's block and its own import of it).
  expect(upstreams.get('u1') ?? 0, report).toBeGreaterThan(0);
  const direct = await post(follower.url, call('eth_blockNumber'));
  expect((direct.body as { result: string }).result).toMatch(/^0x/);
}, 180_000);
