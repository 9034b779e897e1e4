import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHeapDiag } from '../../core/runtime/heapDiag.ts';

describe('startHeapDiag', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('appends JSON heap lines to XONE_HEAP_DIAG_FILE while running and stops on request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heapdiag-'));
    dirs.push(dir);
    const file = join(dir, 'heap.jsonl');
    const stop = startHeapDiag('test', { XONE_HEAP_DIAG: '10', XONE_HEAP_DIAG_FILE: file });
    const deadline = Date.now() + 10_000;
    while (!existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    stop();
    const line = JSON.parse(readFileSync(file, 'utf8').trim().split('\n')[0]!) as Record<string, number | string>;
    expect(line.heapDiag).toBe('test');
    expect(line.pid).toBe(process.pid);
    expect(line.used).toBeGreaterThan(0);
    expect(line.total).toBeGreaterThanOrEqual(line.used as number);
    expect(line.rss).toBeGreaterThan(0);
    const count = readFileSync(file, 'utf8').trim().split('\n').length;
    await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBe(count);
  });

  it('does nothing without XONE_HEAP_DIAG', () => {
    const dir = mkdtempSync(join(tmpdir(), 'heapdiag-'));
    dirs.push(dir);
    const file = join(dir, 'heap.jsonl');
    startHeapDiag('test', { XONE_HEAP_DIAG_FILE: file })();
    expect(existsSync(file)).toBe(false);
  });
});
