import { describe, expect, it } from 'vitest';
import { startFixture, type FixtureResult } from './support/runFixture.ts';

// Real child processes whose main loop is blocked by a busy loop (test/runtime/fixtures/blockedLoop.ts). Upper bounds
// are loose: two shared cores under a load average of 20+ can delay the watchdog thread by hundreds of ms.
const at = (r: FixtureResult, key: 'event' | 'msg', name: string): Record<string, unknown> => {
  const line = r.lines.find((l) => l[key] === name);
  if (!line) throw new Error(`no line ${key}=${name} in ${JSON.stringify(r.lines)}\n${r.stderr}`);
  return line;
};
const timeOf = (line: Record<string, unknown>): number => (typeof line.t === 'number' ? line.t : Date.parse(String(line.time)));
// The watchdog measures lateness from the probe's last heartbeat, which may be up to one probe interval (50 ms) older
// than block_start: shedding can therefore be seen as early as warnMs - 50 ms after the block began.
const PROBE_INTERVAL_MS = 50;

describe('watchdog with a blocked main loop', () => {
  it('default: shedding at ~100 ms, one error at 2 s, the whole process killed non-zero at 10 s', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: null })]).result;
    const start = timeOf(at(r, 'event', 'block_start'));
    const seen = at(r, 'event', 'shedding_seen');
    expect(seen.after_ms).toBeGreaterThanOrEqual(100 - PROBE_INTERVAL_MS);
    expect(seen.after_ms).toBeLessThan(1000);
    expect(at(r, 'msg', 'event loop late: shedding load').late_ms).toBeGreaterThanOrEqual(100);
    const errors = r.lines.filter((l) => l.msg === 'event loop blocked');
    expect(errors).toHaveLength(1); // one error line, not one per check
    expect(errors[0].late_ms).toBeGreaterThanOrEqual(2000);
    expect(timeOf(errors[0]) - start).toBeGreaterThanOrEqual(2000);
    expect(timeOf(errors[0]) - start).toBeLessThan(4000);
    expect(at(r, 'msg', 'event loop blocked too long: killing the process').late_ms).toBeGreaterThanOrEqual(10_000);
    expect(r.signal).toBe('SIGKILL'); // shell status 137: non-zero
    expect(r.code).toBeNull();
    expect(r.endedAt - start).toBeGreaterThanOrEqual(10_000);
    expect(r.endedAt - start).toBeLessThan(13_000);
    expect(r.lines.some((l) => l.event === 'block_end' || l.event === 'sigterm')).toBe(false);
  });
});

// The two short variants run side by side to keep the file's wall time down.
describe.concurrent('watchdog with a blocked main loop, fast thresholds', () => {
  it('args: faster thresholds (50/300/1000 ms) kill by 1 s', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: null, warnMs: 50, errorMs: 300, exitMs: 1000 })]).result;
    const start = timeOf(at(r, 'event', 'block_start'));
    expect(at(r, 'msg', 'event loop late: shedding load').late_ms).toBeGreaterThanOrEqual(50);
    expect(at(r, 'msg', 'event loop blocked').late_ms).toBeGreaterThanOrEqual(300);
    expect(r.signal).toBe('SIGKILL');
    expect(r.endedAt - start).toBeGreaterThanOrEqual(1000);
    expect(r.endedAt - start).toBeLessThan(3000);
  });

  it('behavior: a stall that ends clears shedding, the probe logs it, and the process lives on', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: 700, warnMs: 100, errorMs: 400, exitMs: 5000 })]).result;
    expect(r.code).toBe(0);
    expect(at(r, 'event', 'shedding_seen').after_ms).toBeGreaterThanOrEqual(100 - PROBE_INTERVAL_MS);
    expect(r.lines.filter((l) => l.msg === 'event loop blocked')).toHaveLength(1);
    const stall = r.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('event loop stall ') && Number(l.lag_ms) >= 600);
    expect(stall).toBeDefined();
    expect(at(r, 'msg', 'event loop recovered: shedding off').stalled_ms).toBeGreaterThanOrEqual(400);
    expect(at(r, 'event', 'after')).toMatchObject({ shedding: false, stalls: 1 });
  });
});
