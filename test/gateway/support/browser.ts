import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Flags from TOOLCHAIN.md: Debian's chromium, headless, nothing that reaches the network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Headless Chromium (Debian's /usr/bin/chromium through playwright-core). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** A static page on its own 127.0.0.1 port: an origin other than the gateway's, as a dapp's page is. */
export async function startPageOrigin(): Promise<{ origin: string; stop(): Promise<void> }> {
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dapp</title><p>dapp</p>'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What a page's `fetch` to the gateway saw: status, body and the RateLimit header, or the error a blocked call raises. */
export type PageFetch = { status: number; body: string; rateLimit: string | null; requestId: string | null } | { error: string };

/** Opens `origin` in `browser` and POSTs `body` to `url` from that page with `headers` (a cross-origin call). */
export async function fetchFromPage(
  browser: Browser,
  origin: string,
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<PageFetch> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ url, body, headers }) => {
        try {
          const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
          return {
            status: r.status,
            body: await r.text(),
            rateLimit: r.headers.get('ratelimit'),
            requestId: r.headers.get('x-request-id'),
          };
        } catch (e) {
          return { error: String(e) };
        }
      },
      { url, body: JSON.stringify(body), headers },
    );
  } finally {
    await page.close();
  }
}
