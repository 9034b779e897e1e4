import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleWorker, type WorkerBundle } from '../workers/support/bundle.ts';
import { startDevNode, type DevNode } from '../support/devNode.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { fetchFromPage, launchChromium, startPageOrigin } from './support/browser.ts';
import { ADMIN_TOKEN, call, startTestGateway, testConfig, type TestGateway } from './support/gateway.ts';
import { startListeningWorkerd } from './support/listeningWorkerd.ts';

// Issue #17 item 6: OPTIONS answered 404 and no response had Access-Control-* headers, so no browser dapp on another
// origin could call the gateway. Headless Chromium loads a page from one origin and calls the gateway on another,
// on Node (in front of the real core) and on workerd (the Worker bundle, Miniflare on a port, same core).
let node: DevNode;
let redis: TestRedis;
let browser: Browser;
let allowed: { origin: string; stop(): Promise<void> };
let other: { origin: string; stop(): Promise<void> };
let bundle: WorkerBundle;

beforeAll(async () => {
  [node, redis, browser, allowed, other, bundle] = await Promise.all([
    startDevNode(),
    startRedis(),
    launchChromium(),
    startPageOrigin(),
    startPageOrigin(),
    bundleWorker(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await allowed?.stop();
  await other?.stop();
  bundle?.remove();
  await redis?.stop();
  await node?.stop();
});

/** Runs the browser cases against a gateway at `url` whose admin API creates keys through `createKey`. */
async function browserCases(url: string, createKey: (allowOrigins: string[]) => Promise<string>): Promise<void> {
  const key = await createKey([allowed.origin]);
  const body = call('eth_chainId');
  // Keyless, from any origin: the preflight-free and the preflighted shape both work, headers readable.
  const keyless = await fetchFromPage(browser, other.origin, url, body, {});
  expect(keyless).toMatchObject({ status: 200, body: expect.stringContaining('"result":"0x539"') });
  expect('rateLimit' in keyless && keyless.rateLimit).toMatch(/r=\d+/);
  expect('requestId' in keyless && keyless.requestId).toMatch(/\S/);
  // The key in a header (a preflight for x-api-key) and in the path, from the origin the key allows.
  expect(await fetchFromPage(browser, allowed.origin, url, body, { 'x-api-key': key })).toMatchObject({ status: 200 });
  expect(await fetchFromPage(browser, allowed.origin, `${url}/v1/${key}`, body, {})).toMatchObject({ status: 200 });
  expect(await fetchFromPage(browser, allowed.origin, url, body, { authorization: `Bearer ${key}` })).toMatchObject({ status: 200 });
  // The same key from another origin: refused (the page gets the 401, no result).
  const refused = await fetchFromPage(browser, other.origin, url, body, { 'x-api-key': key });
  expect(refused).toMatchObject({ status: 401, body: expect.stringContaining('origin not allowed') });
  expect('body' in refused && refused.body).not.toContain('0x539');
}

describe('CORS in headless Chromium', () => {
  let g: TestGateway;
  afterAll(async () => g?.close());

  test('behavior: on Node, a page on another origin calls the gateway; the key origin policy holds', async () => {
    g = await startTestGateway(testConfig({ upstreams: [node.url], redis: { url: redis.url, prefix: 'cors:' }, tiers: undefined }), {
      start: false,
    });
    const pre = await fetch(g.url, {
      method: 'OPTIONS',
      headers: {
        origin: allowed.origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/x-api-key/);
    await browserCases(g.url, async (allowOrigins) => {
      const res = await fetch(`${g.adminUrl}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ allowOrigins }),
      });
      return ((await res.json()) as { key: string }).key;
    });
  }, 60_000);

  test('behavior: on workerd, the same', async () => {
    const w = await startListeningWorkerd(bundle.entry, { upstreams: [node.url] });
    try {
      await browserCases(w.url, async (allowOrigins) => {
        const res = await fetch(`${w.url}/admin/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${w.adminToken}` },
          body: JSON.stringify({ allowOrigins }),
        });
        return ((await res.json()) as { key: string }).key;
      });
    } finally {
      await w.close();
    }
  }, 60_000);
});
