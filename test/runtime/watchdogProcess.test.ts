import { describe, expect, it } from 'vitest';
import { startFixture, type FixtureResult } from './support/runFixture.ts';

// Real child processes whose main loop is blocked by a busy loop (test/runtime/fixtures/blockedLoop.ts). On a busy
// host (test:loaded, a CI box at load 20+) the loop can be late on its own, before the block, and the watchdog thread
// can be scheduled hundreds of ms late. So lower bounds are measured from the last heartbeat, as the watchdog measures
// them (load can only make that heartbeat older than one probe interval when the block starts), and only lines logged
// after the block starts are read; upper bounds are loose.
const PROBE_INTERVAL_MS = 50;
/** Pino's `time` has millisecond resolution and the shared clock may differ from Date.now() by a fraction of one. */
const CLOCK_SLACK_MS = 2;

const timeOf = (line: Record<string, unknown>): number => (typeof line.t === 'number' ? line.t : Date.parse(String(line.time)));

/** The block's start, the heartbeat before it, and what was logged from then on. */
function afterBlockStart(r: FixtureResult): { start: number; beatAt: number; lines: Record<string, unknown>[] } {
  const i = r.lines.findIndex((l) => l.event === 'block_start');
  if (i < 0) throw new Error(`no block_start in ${JSON.stringify(r.lines)}\n${r.stderr}`);
  const begin = r.lines[i];
  const start = timeOf(begin);
  return { start, beatAt: Number(begin.beat_at), lines: r.lines.filter((l, j) => j > i && timeOf(l) >= start - CLOCK_SLACK_MS) };
}

const find = (lines: Record<string, unknown>[], key: 'event' | 'msg', name: string): Record<string, unknown> => {
  const line = lines.find((l) => l[key] === name);
  if (!line) throw new Error(`no line ${key}=${name} in ${JSON.stringify(lines)}`);
  return line;
};

/** The watchdog sheds once the loop is `warnMs` late: a heartbeat at least `warnMs` plus one probe interval old. */
function expectShedLate(seen: Record<string, unknown>, warnMs: number): void {
  expect(Number(seen.since_beat_ms)).toBeGreaterThanOrEqual(warnMs + PROBE_INTERVAL_MS - CLOCK_SLACK_MS);
}

describe('watchdog with a blocked main loop', () => {
  it('default: shedding at ~100 ms, one error at 2 s, the whole process killed non-zero at 10 s', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: null })]).result;
    const { start, beatAt, lines } = afterBlockStart(r);
    const seen = find(lines, 'event', 'shedding_seen');
    expectShedLate(seen, 100);
    expect(seen.after_ms).toBeLessThan(1000);
    expect(find(lines, 'msg', 'event loop late: shedding load').late_ms).toBeGreaterThanOrEqual(100);
    const errors = lines.filter((l) => l.msg === 'event loop blocked');
    expect(errors).toHaveLength(1); // one error line, not one per check
    expect(errors[0].late_ms).toBeGreaterThanOrEqual(2000);
    expect(timeOf(errors[0]) - beatAt).toBeGreaterThanOrEqual(2000 + PROBE_INTERVAL_MS - CLOCK_SLACK_MS);
    expect(timeOf(errors[0]) - start).toBeLessThan(4000);
    expect(find(lines, 'msg', 'event loop blocked too long: killing the process').late_ms).toBeGreaterThanOrEqual(10_000);
    expect(r.signal).toBe('SIGKILL'); // shell status 137: non-zero
    expect(r.code).toBeNull();
    expect(r.endedAt - beatAt).toBeGreaterThanOrEqual(10_000 + PROBE_INTERVAL_MS - CLOCK_SLACK_MS);
    expect(r.endedAt - start).toBeLessThan(13_000);
    expect(lines.some((l) => l.event === 'block_end' || l.event === 'sigterm')).toBe(false);
  });
});

// The two short variants run side by side to keep the file's wall time down.
describe.concurrent('watchdog with a blocked main loop, fast thresholds', () => {
  it('args: faster thresholds (50/300/1000 ms) kill by 1 s', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: null, warnMs: 50, errorMs: 300, exitMs: 1000 })]).result;
    const { start, beatAt, lines } = afterBlockStart(r);
    expect(find(lines, 'msg', 'event loop late: shedding load').late_ms).toBeGreaterThanOrEqual(50);
    expect(find(lines, 'msg', 'event loop blocked').late_ms).toBeGreaterThanOrEqual(300);
    expect(r.signal).toBe('SIGKILL');
    expect(r.endedAt - beatAt).toBeGreaterThanOrEqual(1000 + PROBE_INTERVAL_MS - CLOCK_SLACK_MS);
    expect(r.endedAt - start).toBeLessThan(3000);
  });

  it('behavior: a stall that ends clears shedding, the probe logs it, and the process lives on', { timeout: 60_000 }, async () => {
    const r = await startFixture('blockedLoop.ts', [JSON.stringify({ blockMs: 700, warnMs: 100, errorMs: 400, exitMs: 5000 })]).result;
    expect(r.code).toBe(0);
    const { lines } = afterBlockStart(r);
    expectShedLate(find(lines, 'event', 'shedding_seen'), 100);
    const end = lines.findIndex((l) => l.event === 'block_end');
    expect(end).toBeGreaterThan(0);
    // The block's episode: one error line, then a recovery whose worst lateness is the block's (a busy host may add
    // short episodes of its own after it; they are not this test's).
    expect(lines.filter((l) => l.msg === 'event loop blocked')).toHaveLength(1);
    const stall = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('event loop stall ') && Number(l.lag_ms) >= 600);
    expect(stall).toBeDefined();
    expect(find(lines, 'msg', 'event loop recovered: shedding off').stalled_ms).toBeGreaterThanOrEqual(400);
    const after = find(lines, 'event', 'after');
    expect(after.shedding).toBe(false);
    expect(after.stalls).toBeGreaterThanOrEqual(1);
    const episodes = lines.filter((l) => l.msg === 'event loop recovered: shedding off' && Number(l.stalled_ms) >= 400);
    expect(episodes).toHaveLength(1);
  });
});
