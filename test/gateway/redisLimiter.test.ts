import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createNodeFetch } from '../../gateway/adapters/node/nodeFetch.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startFaultProxy } from './support/faultProxy.ts';
import { ADMIN_TOKEN, call, post, startTestGateway, testConfig, type TestGateway } from './support/gateway.ts';

// Two gateway instances share one real redis-server in front of one core dev node; A fails closed for keys, B falls
// back to a local bucket.
// The backend timeout is generous so a loaded test machine does not trip the fail modes during the count.
let redis: TestRedis;
let node: DevNode;
let a: TestGateway;
let b: TestGateway;
const RATE = 20;
const BURST = 1000;
// The gateway's own keep-alive client (undici Pool): lighter than fetch, so 2,000 requests stay quick on a loaded machine.
const fastFetch = createNodeFetch(256);

beforeAll(async () => {
  redis = await startRedis();
  node = await startDevNode();
  const cfg = (failMode: string) =>
    testConfig({
      upstreams: [node.url],
      redis: { url: redis.url, prefix: 'rl-test:' },
      rateLimit: { backend: 'redis', failMode: { key: failMode, ip: 'open' }, backendTimeoutMs: 5_000 },
      tiers: { anonymous: { ratePerSec: 10, burst: 20, denyMethods: [] }, default: { ratePerSec: RATE, burst: BURST, denyMethods: [] } },
      log: { successSampleRate: 0 },
    });
  a = await startTestGateway(cfg('closed'), { start: false });
  b = await startTestGateway(cfg('local'), { start: false });
}, 90_000);
afterAll(async () => {
  await fastFetch.close();
  await a?.close();
  await b?.close();
  await node?.stop();
  await redis?.stop();
});

async function redisNowMs(r: Redis): Promise<number> {
  const [s, us] = await r.time();
  return Number(s) * 1000 + Number(us) / 1000;
}

/**
 * Two instances on their own Redis prefix with the given limiter deadlines; both closed after `fn`. `redisUrl`: the
 * Redis they talk to (default the real one; a fault proxy in front of it to inject a delay).
 */
async function withPair(
  prefix: string,
  rateLimit: Record<string, unknown>,
  fn: (c: TestGateway, d: TestGateway) => Promise<void>,
  redisUrl = redis.url,
): Promise<void> {
  const cfg = testConfig({
    upstreams: [node.url],
    redis: { url: redisUrl, prefix },
    rateLimit: { backend: 'redis', failMode: { key: 'local', ip: 'local' }, ...rateLimit },
    tiers: { anonymous: { ratePerSec: 2, burst: 40, denyMethods: [] }, default: { ratePerSec: 20, burst: 200, denyMethods: [] } },
    log: { successSampleRate: 0 },
  });
  const c = await startTestGateway(cfg, { start: false });
  const d = await startTestGateway(cfg, { start: false });
  try {
    await fn(c, d);
  } finally {
    await c.close();
    await d.close();
  }
}

const sendOne = async (url: string, headers: Record<string, string>) => {
  const res = await fastFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(call('eth_chainId')),
    timeoutMs: 60_000,
  });
  await res.text();
  return res.status;
};

/** 1,000 keyed calls, 100 in flight, alternating instances; the bucket math over the run and the local decisions. */
async function keyedRun(c: TestGateway, d: TestGateway): Promise<{ admitted: number; allowed: number; fallbacks: number[] }> {
  const created = await fetch(`${c.adminUrl}/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: '{}' });
  const { key } = (await created.json()) as { key: string };
  const t1 = performance.now();
  let next = 0;
  const statuses: number[] = [];
  const worker = async () => {
    while (next < 1000) statuses.push(await sendOne(next++ % 2 ? c.url : d.url, { authorization: `Bearer ${key}` }));
  };
  await Promise.all(Array.from({ length: 100 }, worker));
  const allowed = 200 + (20 * (performance.now() - t1)) / 1000;
  const fallbacks = [await c.metricsText(), await d.metricsText()].map((t) =>
    Number(/xone_gateway_ratelimit_backend_failures_total\{scope="key",mode="local"\} (\d+)/.exec(t)?.[1] ?? 0),
  );
  return { admitted: statuses.filter((s) => s === 200).length, allowed, fallbacks };
}

// Issue #17: on a loaded host the first decision of a fresh key took longer than backendTimeoutMs (50 ms) and the
// empty local bucket refused it. Here every decision misses a 1 ms deadline, Redis stays healthy: a late decision
// that the local bucket cannot grant waits for Redis (backendMaxWaitMs), so the count is the bucket math itself,
// from below as well as from above, and the first call of every key is admitted.
test('behavior: decisions later than backendTimeoutMs from a healthy Redis are waited for: the limit holds exactly (two instances, 1 ms deadline)', async () => {
  await withPair('late:', { backendTimeoutMs: 1 }, async (c, d) => {
    // 80 concurrent keyless calls from one address against a burst of 40 (the issue saw 68 admitted).
    const t0 = performance.now();
    const keyless = await Promise.all(Array.from({ length: 80 }, (_, i) => sendOne(i % 2 ? c.url : d.url, {})));
    const keylessAllowed = 40 + (2 * (performance.now() - t0)) / 1000;
    const keylessAdmitted = keyless.filter((s) => s === 200).length;
    expect(keylessAdmitted).toBeLessThanOrEqual(keylessAllowed * 1.02);
    expect(keylessAdmitted).toBeGreaterThanOrEqual(40);
    const run = await keyedRun(c, d);
    const report = JSON.stringify({ ...run, allowed: Math.round(run.allowed) });
    console.log(report);
    expect(run.admitted, report).toBeLessThanOrEqual(run.allowed * 1.02);
    expect(run.admitted, report).toBeGreaterThanOrEqual(200);
    expect(run.fallbacks, report).toEqual([0, 0]);
  });
}, 90_000);

// Issue #17 item 4: a decision slower than the limiter's deadline fell back to a per-instance bucket that started
// full, so two instances admitted far more than the shared bucket allows (748 against 450). Here every decision also
// misses backendMaxWaitMs (1 ms), so each counts as a failure: the local buckets start empty, what they admit is
// charged to Redis afterwards, and the total stays within the bucket math.
// The lateness is injected: a fault proxy in front of Redis holds every reply 25 ms (a quiet host answered every
// decision within 1 ms, so nothing fell back and the test proved nothing). Redis itself stays healthy.
test('behavior: decisions later than backendMaxWaitMs fall back without granting more than the shared bucket (two instances, 1 ms)', async () => {
  const slowRedis = await startFaultProxy(redis.url);
  try {
    const slowUrl = `redis://127.0.0.1:${slowRedis.port}`;
    await withPair(
      'failed:',
      { backendTimeoutMs: 1, backendMaxWaitMs: 1 },
      async (c, d) => {
        // Set after start-up: the limiter's warm-up and the first connection are not what is measured.
        slowRedis.delayMs = 25;
        const run = await keyedRun(c, d);
        const report = JSON.stringify({ ...run, allowed: Math.round(run.allowed) });
        console.log(report);
        expect(run.fallbacks[0]! + run.fallbacks[1]!, report).toBeGreaterThan(0);
        // The only slack: what each instance's local episode (at most the 250 ms cooldown at 20/s) admitted before
        // its debt reached Redis. (A failing backend may under-admit: the local buckets start empty; documented.)
        expect(run.admitted, report).toBeLessThanOrEqual(run.allowed * 1.02 + 2 * 20 * 0.25);
        expect(run.admitted, report).toBeGreaterThan(0);
      },
      slowUrl,
    );
  } finally {
    await slowRedis.stop();
  }
}, 90_000);

test('behavior: two instances sharing Redis admit within ±2 % of the bucket math under 2,000 concurrent requests; Redis killed → fail modes + metric', async () => {
  const created = await fetch(`${a.adminUrl}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ tier: 'default', label: 'load' }),
  });
  const { key } = (await created.json()) as { key: string };
  const auth = { authorization: `Bearer ${key}` };
  const statuses: number[] = [];
  const wallMs = () => performance.timeOrigin + performance.now();
  // Send and receive times of the last admitted request: its charge happened between the two.
  let lastAdmitted = { sent: 0, received: 0 };
  const send = async (url: string, id: number) => {
    const sent = wallMs();
    const res = await fastFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(call('eth_chainId', [], id)),
      timeoutMs: 60_000,
    });
    await res.text();
    statuses.push(res.status);
    if (res.status === 200 && sent > lastAdmitted.sent) lastAdmitted = { sent, received: wallMs() };
  };
  // Same kernel clock as Redis TIME (one machine): the bucket math runs from the first charge to the last admission.
  // Connect first (the first command of a new client also pays for the connection), then read Redis TIME between two
  // local readings: the skew is measured against their midpoint and may be off by at most half that round trip.
  const clock = new Redis(redis.url);
  await clock.ping();
  const before = wallMs();
  const redisNow = await redisNowMs(clock);
  const after = wallMs();
  const skew = redisNow - (before + after) / 2;
  const skewBound = (after - before) / 2 + 20;
  // Limiter script calls (EVALSHA) during the run: leases of 10 tokens, not one round trip per request.
  const scriptCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await clock.info('commandstats'))?.[1] ?? 0);
  const calls0 = await scriptCalls();
  const t0 = wallMs();
  // Warm both instances (connections, key cache) with the first two requests; they count like any other.
  await Promise.all([send(a.url, -1), send(b.url, -2)]);
  const warmedUp = wallMs();
  let next = 0;
  // 2,000 requests, 200 in flight at a time, alternating between the instances.
  const worker = async () => {
    while (next < 2000) {
      const i = next++;
      await send(i % 2 ? a.url : b.url, i);
    }
  };
  await Promise.all(Array.from({ length: 200 }, worker));
  const admitted = statuses.filter((s) => s === 200).length;
  const refused = statuses.filter((s) => s === 429).length;
  expect(admitted + refused).toBe(2002);
  expect(Math.abs(skew)).toBeLessThan(skewBound);
  // The first charge happened between t0 and the warm-up's answer, the last one while its request was in flight:
  // the bucket math (burst + rate × elapsed) is bounded by those instants, and the count must sit within ±2 % of it.
  const lower = BURST + (RATE * Math.max(0, lastAdmitted.sent - warmedUp)) / 1000;
  const upper = BURST + (RATE * (lastAdmitted.received - t0)) / 1000;
  const failures = [await a.metricsText(), await b.metricsText()].map((t) =>
    t.match(/^xone_gateway_ratelimit_backend_failures_total\{.*$/gm),
  );
  const roundTrips = (await scriptCalls()) - calls0;
  clock.disconnect();
  const report = JSON.stringify({ admitted, lower: Math.round(lower), upper: Math.round(upper), failures, roundTrips });
  console.log(report);
  expect(roundTrips, report).toBeLessThan(admitted / 2);
  expect(admitted, report).toBeGreaterThanOrEqual(lower * 0.98);
  expect(admitted, report).toBeLessThanOrEqual(upper * 1.02);
  expect(await a.metricsText()).not.toMatch(/xone_gateway_ratelimit_backend_failures_total\{/);
  // Every HTTP response is counted by status (the 5xx/429 alerts); a healthy Redis counts no errors.
  const texts = [await a.metricsText(), await b.metricsText()];
  const responses = (code: number) =>
    texts.reduce((n, t) => n + Number(new RegExp(`xone_gateway_http_responses_total\\{code="${code}"\\} (\\d+)`).exec(t)?.[1] ?? 0), 0);
  expect([responses(200), responses(429)]).toEqual([admitted, refused]);
  expect(texts[0].match(/^xone_gateway_redis_errors_total.*$/m)?.[0]).toBe('xone_gateway_redis_errors_total 0');

  // Redis dies: A (key scope fail-closed) refuses, B (local fallback bucket) admits; both count it.
  await redis.kill();
  // Each instance may still hold its last lease's refusal ("no token until its retry-after", one token's time: 50 ms):
  // answered locally, it is no backend failure. Past it, the next decisions reach the dead Redis and the fail modes.
  await new Promise((r) => setTimeout(r, (5 * 1000) / RATE));
  const closed = await post(a.url, call('eth_chainId'), auth);
  expect(closed.status).toBe(429);
  expect(closed.body).toMatchObject({ error: { code: -32005, data: { scope: 'key' } } });
  // B's local bucket starts empty (it may not grant what the shared bucket would not): refused first, then one token
  // per 1/RATE s. It starts where the shared bucket was last seen, and with leases that is the TAT a lease reported,
  // measured from the lease's send time: up to a few tokens further drawn than the instant of the kill (one run in
  // six on a quiet host still said retryAfterMs 50 after 2/RATE s), so B is asked every 1/RATE s for up to 1 s.
  expect((await post(b.url, call('eth_chainId'), auth)).status).toBe(429);
  let local = { status: 0 };
  for (let i = 0; i < RATE && local.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 1000 / RATE));
    local = await post(b.url, call('eth_chainId'), auth);
  }
  expect(local.status).toBe(200);
  expect(await a.metricsText()).toMatch(/xone_gateway_ratelimit_backend_failures_total\{scope="key",mode="closed"\} [1-9]/);
  expect(await b.metricsText()).toMatch(/xone_gateway_ratelimit_backend_failures_total\{scope="key",mode="local"\} [1-9]/);
  expect(await a.metricsText()).toMatch(/^xone_gateway_redis_errors_total [1-9]/m);
}, 90_000); // 2,000 requests: about 10 s on a quiet host, up to ~40 s when the 2 cores are shared with other suites
