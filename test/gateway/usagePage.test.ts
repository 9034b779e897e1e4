import { Redis } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisUsageStore } from '../../gateway/adapters/node/redisUsageStore.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { bundleWorker, type WorkerBundle } from '../workers/support/bundle.ts';
import { launchChromium } from './support/browser.ts';
import { ADMIN_TOKEN, call, post, startTestGateway, testConfig, until, type TestGateway } from './support/gateway.ts';
import { startListeningWorkerd } from './support/listeningWorkerd.ts';

// The key holder's usage page (issue #17 "what hosted providers offer"): static HTML + JS from the gateway, charts of
// today's and the last 30 days' calls and refusals per method. Headless Chromium opens it against a real gateway
// (real Redis, the real dev node behind it) after real calls, admitted and refused, plus earlier days in the Redis
// usage store, with the key in the path (/v1/<key>/dashboard) and typed into the page's form (sent as X-Api-Key).
let redis: TestRedis;
let node: DevNode;
let browser: Browser;
let bundle: WorkerBundle;
let g: TestGateway;
const PREFIX = 'usage-page:';

beforeAll(async () => {
  [redis, node, browser, bundle] = await Promise.all([startRedis(), startDevNode(), launchChromium(), bundleWorker()]);
  g = await startTestGateway(
    testConfig({
      upstreams: [node.url],
      redis: { url: redis.url, prefix: PREFIX },
      rateLimit: { backend: 'redis', backendTimeoutMs: 5_000 },
      tiers: { anonymous: { ratePerSec: 10, burst: 20, denyMethods: [] }, default: { ratePerSec: 0.1, burst: 20, denyMethods: [] } },
    }),
    { start: false },
  );
}, 120_000);
afterAll(async () => {
  await g?.close();
  await browser?.close();
  bundle?.remove();
  await node?.stop();
  await redis?.stop();
});

type Counts = { calls: number; computeUnits: number; refused: number };
type Report = { keyId: string; total: Counts; days: (Counts & { date: string; methods: Record<string, Counts> })[] };
type Bar = { name: string; admitted: number; refused: number };

/** What the page drew: the bars of both charts (from their data attributes), the totals and the table. */
async function readPage(page: Page): Promise<{ today: Bar[]; days: Bar[]; totals: Record<string, string>; table: string[][] }> {
  return page.evaluate(() => {
    // The few DOM shapes read here (the Node tsconfig has no DOM lib).
    interface El extends Iterable<El> {
      getAttribute(name: string): string | null;
      querySelector(sel: string): El | null;
      textContent: string | null;
      children: Iterable<El>;
    }
    const doc = (
      globalThis as unknown as { document: { querySelectorAll(sel: string): Iterable<El>; getElementById(id: string): El | null } }
    ).document;
    const bars = (sel: string, attr: string) =>
      [...doc.querySelectorAll(sel)].map((g) => ({
        name: g.getAttribute(attr) ?? '',
        admitted: Number(g.querySelector('[data-kind=admitted]')?.getAttribute('data-value')),
        refused: Number(g.querySelector('[data-kind=refused]')?.getAttribute('data-value')),
      }));
    const totals: Record<string, string> = {};
    for (const id of ['today-calls', 'today-refused', 'today-cu', 'window-calls', 'window-refused', 'window-cu'])
      totals[id] = doc.getElementById(id)?.textContent ?? '';
    const table = [...doc.querySelectorAll('#methods-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent ?? ''));
    return { today: bars('#today-chart [data-method]', 'data-method'), days: bars('#days-chart [data-day]', 'data-day'), totals, table };
  });
}

/** The page's drawing must be exactly the report's numbers. */
function expectDrawn(drawn: Awaited<ReturnType<typeof readPage>>, report: Report): void {
  const today = report.days.at(-1)!;
  const fmt = (n: number) => n.toLocaleString('en-US');
  expect(drawn.totals).toEqual({
    'today-calls': fmt(today.calls),
    'today-refused': fmt(today.refused),
    'today-cu': fmt(today.computeUnits),
    'window-calls': fmt(report.total.calls),
    'window-refused': fmt(report.total.refused),
    'window-cu': fmt(report.total.computeUnits),
  });
  const todayBars = Object.entries(today.methods).map(([name, c]) => ({ name, admitted: c.calls - c.refused, refused: c.refused }));
  expect([...drawn.today].sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual(todayBars.sort((a, b) => (a.name < b.name ? -1 : 1)));
  expect(drawn.days).toEqual(report.days.map((d) => ({ name: d.date, admitted: d.calls - d.refused, refused: d.refused })));
}

/** Opens `url`, collecting page errors and CSP reports, and the requests it made. */
async function open(url: string) {
  const page = await browser.newPage();
  const problems: string[] = [];
  const requests: { url: string; headers: Record<string, string> }[] = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('request', (r) => requests.push({ url: r.url(), headers: r.headers() }));
  await page.goto(url);
  return { page, problems, requests };
}

const dayBefore = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

test('behavior: the usage page charts a key holder its own calls and refusals per method, today and for 30 days; the key stays out of logs', async () => {
  const created = await fetch(`${g.adminUrl}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: '{"label":"page"}',
  });
  const { key, record } = (await created.json()) as { key: string; record: { id: string } };
  // Earlier days, as earlier flushes left them in the Redis usage store.
  const r = new Redis(redis.url);
  await new RedisUsageStore(r, PREFIX).add([
    { keyId: record.id, day: dayBefore(1), method: 'eth_call', calls: 7, computeUnits: 5, refused: 2 },
    { keyId: record.id, day: dayBefore(5), method: 'eth_getBalance', calls: 4, computeUnits: 4, refused: 0 },
    { keyId: record.id, day: dayBefore(12), method: 'eth_chainId', calls: 9, computeUnits: 9, refused: 0 },
  ]);
  r.disconnect();
  // Today's real calls: singles with the key in a header and in the path, then a batch past the burst of 20.
  const bearer = { authorization: `Bearer ${key}` };
  for (let i = 0; i < 3; i++) expect((await post(g.url, call('eth_chainId'), bearer)).status).toBe(200);
  expect((await post(`${g.url}/v1/${key}`, call('eth_getBalance', ['0x' + '22'.repeat(20), 'latest']))).status).toBe(200);
  const batch = await post(
    g.url,
    Array.from({ length: 25 }, (_, i) => call('eth_blockNumber', [], i)),
    bearer,
  );
  const refusedNow = (batch.body as { error?: { code: number } }[]).filter((x) => x.error?.code === -32005).length;
  expect(refusedNow).toBeGreaterThan(0);
  // The counts reach the store within a second or two (one flush per second).
  const report = await until(
    async () => {
      const res = await fetch(`${g.url}/usage`, { headers: bearer });
      const body = (await res.json()) as Report;
      return body.days?.at(-1)?.calls === 29 ? body : undefined;
    },
    15_000,
    1_100,
  );
  expect(report.days.at(-1)!.methods.eth_blockNumber).toMatchObject({ calls: 25, refused: refusedNow });
  expect(report.days.find((d) => d.date === dayBefore(1))?.methods.eth_call).toEqual({ calls: 7, computeUnits: 5, refused: 2 });

  // 1. The key in the path, as in an RPC URL.
  const viaPath = await open(`${g.url}/v1/${key}/dashboard`);
  const pageRes = await fetch(`${g.url}/v1/${key}/dashboard`);
  expect(pageRes.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(pageRes.headers.get('referrer-policy')).toBe('no-referrer');
  expect(pageRes.headers.get('cache-control')).toBe('no-store');
  await viaPath.page.waitForSelector('body[data-state=ready]', { timeout: 20_000 });
  // The key came from the path: no form to type one into.
  expect(await viaPath.page.isVisible('#key-form')).toBe(false);
  const drawn = await readPage(viaPath.page);
  expectDrawn(drawn, report);
  expect(drawn.today.find((b) => b.name === 'eth_blockNumber')).toEqual({
    name: 'eth_blockNumber',
    admitted: 25 - refusedNow,
    refused: refusedNow,
  });
  expect(drawn.days).toHaveLength(30);
  expect(drawn.table.find((row) => row[0] === 'eth_chainId')).toEqual(['eth_chainId', '12', '0', '12']);
  // One method's days: only the day it was called on has a bar.
  await viaPath.page.selectOption('#method-filter', 'eth_call');
  const onlyCalls = await readPage(viaPath.page);
  expect(onlyCalls.days.filter((d) => d.admitted + d.refused > 0)).toEqual([{ name: dayBefore(1), admitted: 5, refused: 2 }]);
  expect(viaPath.problems).toEqual([]);
  // The page's script and styles are key-free URLs fetched without a Referer (which would carry the key).
  const assets = viaPath.requests.filter((q) => q.url.includes('/dashboard/usage.'));
  expect(assets.map((q) => new URL(q.url).pathname).sort()).toEqual(['/dashboard/usage.css', '/dashboard/usage.js']);
  expect(viaPath.requests.filter((q) => !q.url.startsWith(g.url))).toEqual([]);
  for (const q of assets) expect(q.headers.referer ?? '').toBe('');
  await viaPath.page.close();

  // 2. The key typed into the page at /dashboard: sent as X-Api-Key, never in a URL.
  const viaForm = await open(`${g.url}/dashboard`);
  await viaForm.page.waitForSelector('body[data-state=key]');
  await viaForm.page.fill('#key-input', key);
  await viaForm.page.click('#key-form button[type=submit]');
  await viaForm.page.waitForSelector('body[data-state=ready]', { timeout: 20_000 });
  expectDrawn(await readPage(viaForm.page), report);
  const usageReq = viaForm.requests.find((q) => new URL(q.url).pathname === '/usage');
  expect(usageReq?.headers['x-api-key']).toBe(key);
  for (const q of viaForm.requests) expect(q.url).not.toContain(key);
  expect(viaForm.problems).toEqual([]);
  await viaForm.page.close();

  // 3. A wrong key: the page says why and shows the form again; nothing is drawn.
  const wrong = await open(`${g.url}/dashboard`);
  await wrong.page.waitForSelector('body[data-state=key]');
  await wrong.page.fill('#key-input', 'xk_nope_nope');
  await wrong.page.click('#key-form button[type=submit]');
  await wrong.page.waitForSelector('body[data-state=error]', { timeout: 20_000 });
  expect(await wrong.page.textContent('#status')).toMatch(/unauthorized/);
  expect(await wrong.page.isVisible('#key-form')).toBe(true);
  expect(await wrong.page.isVisible('#report')).toBe(false);
  await wrong.page.close();

  // The key appears in no log line (only its id does).
  expect(JSON.stringify(g.lines)).not.toContain(key);
  expect(g.lines.some((l) => l.key_id === record.id)).toBe(true);
}, 120_000);

test('behavior: on workerd, the same page draws the same counts', async () => {
  const w = await startListeningWorkerd(bundle.entry, { upstreams: [node.url] });
  try {
    const created = await fetch(`${w.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.adminToken}` },
      body: '{}',
    });
    const { key } = (await created.json()) as { key: string };
    for (const m of ['eth_chainId', 'eth_chainId', 'eth_getBalance'])
      expect(
        (await post(w.url, call(m, m === 'eth_getBalance' ? ['0x' + '33'.repeat(20), 'latest'] : []), { 'x-api-key': key })).status,
      ).toBe(200);
    const report = await until(
      async () => {
        const body = (await (await fetch(`${w.url}/v1/${key}/usage`)).json()) as Report;
        return body.days?.at(-1)?.calls === 3 ? body : undefined;
      },
      15_000,
      1_100,
    );
    const { page, problems } = await open(`${w.url}/v1/${key}/dashboard`);
    await page.waitForSelector('body[data-state=ready]', { timeout: 20_000 });
    expectDrawn(await readPage(page), report);
    expect(problems).toEqual([]);
    await page.close();
  } finally {
    await w.close();
  }
}, 90_000);
