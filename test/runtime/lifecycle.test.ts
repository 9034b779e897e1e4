import { describe, expect, it } from 'vitest';
import { createCapturingLogger } from '../../core/log/index.ts';
import { Lifecycle } from '../../core/runtime/lifecycle.ts';
import { startFixture } from './support/runFixture.ts';

describe('Lifecycle (in-process)', () => {
  it('default: closes in reverse order, aborts the signal first, and closes once', async () => {
    const order: string[] = [];
    const life = new Lifecycle();
    life.add('store', () => void order.push('store'));
    life.add('chain', { close: async () => void order.push(`chain aborted=${life.signal.aborted}`) });
    life.add('rpc', () => void order.push('rpc'));
    const [r1, r2] = await Promise.all([life.close(), life.close()]);
    expect(order).toEqual(['rpc', 'chain aborted=true', 'store']);
    expect(r1).toBe(r2);
    expect(r1).toEqual({ ok: true, closed: ['rpc', 'chain', 'store'], failed: [], timedOut: [] });
    expect(() => life.add('late', () => {})).toThrow(/during shutdown/);
  });

  it('error: a closable that throws is logged and the rest still close', async () => {
    const logger = createCapturingLogger();
    const order: string[] = [];
    const life = new Lifecycle({}, { logger });
    life.add('a', () => void order.push('a'));
    life.add('b', () => {
      throw new Error('disk gone');
    });
    life.add('c', () => void order.push('c'));
    const r = await life.close();
    expect(order).toEqual(['c', 'a']);
    expect(r).toMatchObject({ ok: false, failed: ['b'] });
    expect(logger.records.some((l) => l.level === 'error' && l.ctx.closable === 'b')).toBe(true);
  });

  it('behavior: a hung closable is abandoned at the deadline and the earlier ones get their grace', async () => {
    const order: string[] = [];
    const life = new Lifecycle({ timeoutMs: 150, graceMs: 50 });
    life.add('a', () => void order.push('a'));
    life.add('hung', () => new Promise<void>(() => {}));
    const t0 = performance.now();
    const r = await life.close();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: false, timedOut: ['hung'], closed: ['a'] });
    expect(order).toEqual(['a']);
  });
});

describe('Lifecycle (real process, real signals)', () => {
  it('default: SIGTERM closes c, b, a in that order and exits 0', { timeout: 60_000 }, async () => {
    const child = startFixture('lifecycle.ts', ['{}']);
    await child.waitFor('ready');
    child.kill('SIGTERM');
    const r = await child.result;
    expect(r.lines.filter((l) => l.event === 'closed')).toEqual([
      { event: 'closed', name: 'c', aborted: true },
      { event: 'closed', name: 'b' },
      { event: 'closed', name: 'a' },
    ]);
    expect(r.lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
    expect(r.code).toBe(0);
  });

  it('error: SIGINT with a hung closable exits 1 after the timeout, still closing the others', { timeout: 60_000 }, async () => {
    const child = startFixture('lifecycle.ts', [JSON.stringify({ hang: true, timeoutMs: 300 })]);
    await child.waitFor('ready');
    const t0 = Date.now();
    child.kill('SIGINT');
    const r = await child.result;
    expect(r.lines.filter((l) => l.event === 'closed').map((l) => l.name)).toEqual(['c', 'a']);
    expect(r.lines.some((l) => l.msg === 'close timed out; moving on' && l.closable === 'b')).toBe(true);
    expect(r.code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
