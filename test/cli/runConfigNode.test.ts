/**
 * One real `xone run` started with a config file and an XONE_* variable: the file's values reach the node
 * (slow-block logging, block period) and the variable beats the file (CORS origin), as docs/cli.md says.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeChild, type NodeChild } from '../node/support/nodeChild.ts';

const ROOT = join(import.meta.dirname, '..', '..');
mkdirSync(join(ROOT, '.xone', 'test-e2e'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.xone', 'test-e2e', 'config-'));
const children: NodeChild[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const allowedOrigin = async (url: string, origin: string): Promise<string | null> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });
  await res.arrayBuffer();
  return res.headers.get('access-control-allow-origin');
};

describe('xone run --config (end to end)', () => {
  it('behavior: a dev node takes its settings from the file, and XONE_* overrides the file', async () => {
    const config = join(dir, 'xone.json');
    writeFileSync(config, JSON.stringify({ 'debug.logslowblock': 0, period: 1, 'http.corsdomain': 'https://file.example' }));
    const node = await startNodeChild({ XONE_CONFIG: config, XONE_HTTP_CORSDOMAIN: 'https://env.example' });
    children.push(node);
    // debug.logslowblock 0 from the file: every sealed block logs a "Slow block" line.
    const slow = await node.waitForLine('Slow block', 30_000);
    expect((slow.block as { number: number }).number).toBeGreaterThanOrEqual(1);
    expect(await allowedOrigin(node.url, 'https://env.example')).toBe('https://env.example');
    expect(await allowedOrigin(node.url, 'https://file.example')).not.toBe('https://file.example');
  }, 90_000);
});
