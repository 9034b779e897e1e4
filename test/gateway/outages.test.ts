import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createNodeFetch } from '../../gateway/adapters/node/nodeFetch.ts';
import { noopMetrics } from '../../gateway/metrics/types.ts';
import { probeUpstreams } from '../../gateway/upstream/healthProbe.ts';
import { UpstreamPool } from '../../gateway/upstream/pool.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startFaultProxy, type FaultProxy } from './support/faultProxy.ts';
import { call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';

// The real core dev node behind a TCP proxy that can cut it off (an outage) or slow it down; the gateway's fast
// node:http path and its Hono path in front.
let node: DevNode;
let proxy: FaultProxy;
let g: TestGateway;
let hono: TestGateway;
const ADDR = '0x00000000000000000000000000000000000000aa';
// Never cached (pending), so every call reaches the upstream.
const uncached = (id: number) => call('eth_getTransactionCount', [ADDR, 'pending'], id);

beforeAll(async () => {
  node = await startDevNode();
  proxy = await startFaultProxy(node.url);
  // Successes are not sampled into the log (as in production, where 1 % are): a call the client left before its
  // answer must be logged anyway (item 9 below).
  const cfg = testConfig({ upstreams: [proxy.url], retry: { attempts: 0 }, tiers: undefined, log: { successSampleRate: 0 } });
  g = await startTestGateway(cfg, { start: false });
  hono = await startTestGateway(cfg, { start: false, honoOnly: true });
}, 90_000);
afterAll(async () => {
  await g?.close();
  await hono?.close();
  await proxy?.stop();
  await node?.stop();
});

// Issue #17 item 7: after an outage the 20-request error window was full of failures, so the upstream stayed unfit
// (503) until ten more successes scrolled them out: ~17 s of probes. One successful probe now closes its breaker.
test('behavior: an upstream is routable again on the first successful probe after an outage', async () => {
  expect((await post(g.url, uncached(1))).status).toBe(200);
  proxy.setDown(true);
  for (let i = 0; i < 10; i++) expect((await post(g.url, uncached(i))).status).toBe(503);
  expect(g.gateway.pool.unfitReason(g.gateway.pool.upstreams[0]!)).toBe('errors');
  proxy.setDown(false);
  await probeUpstreams(g.gateway.pool, noopMetrics, 5_000);
  expect(g.gateway.pool.unfitReason(g.gateway.pool.upstreams[0]!)).toBeUndefined();
  const back = await post(g.url, uncached(99));
  expect(back.status).toBe(200);
  expect(back.body).toMatchObject({ result: '0x0' });
});

test('behavior: without probes (Workers), the breaker half-opens after health.intervalMs and the first success closes it', async () => {
  let clock = 1_000_000;
  const fetchFn = createNodeFetch(4);
  const cfg = testConfig({ upstreams: [proxy.url], retry: { attempts: 0 }, health: { intervalMs: 2_000 } });
  const pool = new UpstreamPool(cfg, noopMetrics, fetchFn, () => clock);
  try {
    proxy.setDown(true);
    for (let i = 0; i < 6; i++) await pool.forward('eth_getTransactionCount', [ADDR, 'pending'], 2_000).catch(() => undefined);
    expect(pool.unfitReason(pool.upstreams[0]!)).toBe('errors');
    proxy.setDown(false);
    clock += 1_999;
    await expect(pool.forward('eth_getTransactionCount', [ADDR, 'pending'], 2_000)).rejects.toMatchObject({ kind: 'unavailable' });
    clock += 1;
    expect(pool.upstreams[0]!.breaker.state(clock)).toBe('halfOpen');
    expect((await pool.forward('eth_getTransactionCount', [ADDR, 'pending'], 2_000)).result).toBe('0x0');
    expect(pool.upstreams[0]!.breaker.state(clock)).toBe('closed');
  } finally {
    proxy.setDown(false);
    await fetchFn.close();
  }
});

/** Sends the head of a POST that announces `declared` body bytes, `sent` of them, then resets the connection. */
async function abortMidBody(url: string, declared: number, sent: string): Promise<void> {
  const { port } = new URL(url);
  await new Promise<void>((resolve) => {
    const s = connect(Number(port), '127.0.0.1', () => {
      s.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n${sent}`);
      setTimeout(() => {
        s.resetAndDestroy();
        resolve();
      }, 100);
    });
  });
}

const responses = async (gw: TestGateway, code: number) =>
  Number(new RegExp(`xone_gateway_http_responses_total\\{code="${code}"\\} (\\d+)`).exec(await gw.metricsText())?.[1] ?? 0);

// Issue #17 item 9: a client that went away was logged and counted as HTTP 500, feeding the 5xx alert.
test.each([
  ['node:http fast path', () => g],
  ['Hono path', () => hono],
])('behavior: a client that disconnects is logged and counted as 499, never 500 (%s)', async (_name, which) => {
  const gw = which();
  const before500 = await responses(gw, 500);
  // Mid-body: the rest of the announced body never comes.
  await abortMidBody(gw.url, 1_000, '{"jsonrpc":"2.0","id":1,');
  await until(() => gw.lines.some((l) => l.http_status === 499 && l.method === null));
  // While the upstream answers: the core is slowed down by the proxy and the client gives up first.
  proxy.delayMs = 600;
  try {
    const ac = new AbortController();
    const pending = fetch(gw.url, {
      method: 'POST',
      body: JSON.stringify(uncached(7)),
      headers: { 'content-type': 'application/json' },
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 150);
    await expect(pending).rejects.toThrow();
    await until(() => gw.lines.some((l) => l.http_status === 499 && l.method === 'eth_getTransactionCount'), 5_000);
  } finally {
    proxy.delayMs = 0;
  }
  expect(await responses(gw, 499)).toBeGreaterThanOrEqual(2);
  expect(await responses(gw, 500)).toBe(before500);
  expect(gw.lines.filter((l) => l.http_status === 500)).toEqual([]);
});
