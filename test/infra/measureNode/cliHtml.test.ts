import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasureReport } from '../../../infra/measureNode/types.ts';
import { startAnvil, type RunningAnvil } from '../support/anvil.ts';

const run = promisify(execFile);
const BIN = resolve('bin/measure-node.mjs');
/** Flags from TOOLCHAIN.md: Debian chromium, headless, nothing that reaches the network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--headless',
];

let anvil: RunningAnvil;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'measure-node-cli-'));
  anvil = await startAnvil(['--block-time', '1']);
});
afterAll(async () => {
  await anvil?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('measure-node CLI and HTML report', () => {
  it('default: writes JSON, Markdown and an offline HTML report that headless Chromium renders without errors', async () => {
    const prefix = join(dir, 'report');
    const { stdout } = await run(
      process.execPath,
      [BIN, anvil.url, '--window', '1', '--calls', '3', '--out', prefix, '--header', 'x-api-key: abc123secret'],
      { timeout: 60_000 },
    );
    const lastLine = stdout.trim().split('\n').at(-1) as string;
    expect(lastLine).toMatch(/^measure-node http:\/\/127\.0\.0\.1:\d+\/ window=\d/);
    const report = JSON.parse(await readFile(`${prefix}.json`, 'utf8')) as MeasureReport;
    expect(report.schema).toBe('xone.measure-node/1');
    expect(report.processSource.kind).toBe('port');
    expect(report.before.methods).toHaveLength(7);
    const md = await readFile(`${prefix}.md`, 'utf8');
    expect(md).toContain('| Call | Before p50 / p95 | After p50 / p95 | Errors before / after |');
    expect(md).toContain('| eth_getBlockByNumber full |');
    expect(md).toContain('| Peak (VmHWM) |');
    const html = await readFile(`${prefix}.html`, 'utf8');
    for (const text of [md, html, JSON.stringify(report)]) expect(text).not.toContain('abc123secret');

    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const fileUrl = pathToFileURL(`${prefix}.html`).href;
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('request', (r) => {
        if (r.url() !== fileUrl) problems.push(`external request: ${r.url()}`);
      });
      await page.goto(fileUrl, { waitUntil: 'load' });
      expect(await page.title()).toContain('measure-node report');
      const charts = await page.$$eval('svg.chart', (els) =>
        els.map((el) => {
          const box = el.getBoundingClientRect();
          const bars = [...el.querySelectorAll('rect.bar')].map((b) => b.getBoundingClientRect().width);
          return { id: el.id, width: box.width, height: box.height, bars: bars.length, widest: Math.max(0, ...bars) };
        }),
      );
      expect(charts.map((c) => c.id)).toEqual(['chart-latency', 'chart-failures', 'chart-memory', 'chart-io']);
      const latency = charts[0];
      expect(latency.bars).toBe(28); // 7 methods x (before/after x p50/p95)
      expect(latency.widest).toBeGreaterThan(100);
      expect(charts[2].bars).toBe(8);
      for (const c of charts) expect(c.width * c.height).toBeGreaterThan(0);
      expect(await page.locator('table').first().isVisible()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
    // A cold tsx start of the CLI plus a Chromium launch take tens of seconds on a loaded 2-core host.
  }, 120_000);

  it('error: a bad flag exits 2 with a clear message and writes nothing', async () => {
    const err = await run(process.execPath, [BIN, anvil.url, '--calls', 'many', '--out', join(dir, 'bad')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('expected a number, got "many"');
    await expect(readFile(join(dir, 'bad.json'))).rejects.toThrow(/ENOENT/);
  });
});
