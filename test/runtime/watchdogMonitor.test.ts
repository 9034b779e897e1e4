import { describe, expect, it } from 'vitest';
import { SharedHeartbeat } from '../../core/runtime/heartbeat.ts';
import { resolveWatchdogOptions, WatchdogMonitor } from '../../core/runtime/watchdog/index.ts';

// Fake clock (microseconds): the decision logic alone, one check at a time.
const ms = (n: number): bigint => BigInt(n * 1000);

describe('WatchdogMonitor', () => {
  it('default: ok → warn+shed → one error → exit, in order', () => {
    const hb = new SharedHeartbeat();
    const m = new WatchdogMonitor(hb, resolveWatchdogOptions());
    expect(m.check(ms(1000))).toEqual({ kind: 'none' }); // no beat yet: the probe has not started
    hb.beat(ms(1000));
    expect(m.check(ms(1100)).kind).toBe('none'); // 50 ms late
    expect(m.check(ms(1150))).toEqual({ kind: 'warn', lateMs: 100 });
    expect(hb.isShedding()).toBe(true);
    expect(m.check(ms(1500)).kind).toBe('none');
    expect(m.check(ms(3050))).toEqual({ kind: 'error', lateMs: 2000 });
    expect(m.check(ms(5000)).kind).toBe('none'); // the error is logged once per stall
    expect(m.check(ms(11_050))).toEqual({ kind: 'exit', lateMs: 10_000 });
    expect(m.check(ms(12_000)).kind).toBe('none'); // already exiting
    expect(hb.stalls()).toBe(1);
  });

  it('behavior: a fresh beat clears shedding and reports the worst lateness; the next stall warns again', () => {
    const hb = new SharedHeartbeat();
    const m = new WatchdogMonitor(hb, resolveWatchdogOptions({ warnMs: 100, errorMs: 200, exitMs: 0 }));
    hb.beat(ms(1)); // 0 would mean "no beat yet"
    expect(m.check(ms(200)).kind).toBe('warn');
    expect(m.check(ms(300)).kind).toBe('error');
    expect(m.check(ms(60_000)).kind).toBe('none'); // exitMs 0 disables the exit
    hb.beat(ms(60_001));
    expect(m.check(ms(60_010))).toEqual({ kind: 'recovered', stalledMs: 59_949 });
    expect(hb.isShedding()).toBe(false);
    expect(m.check(ms(60_300)).kind).toBe('warn');
    expect(m.check(ms(60_400)).kind).toBe('error'); // a new stall may log its own error
    expect(hb.stalls()).toBe(2);
  });

  it('behavior: a probe stopped on purpose (beat 0) is not a stall, and clears shedding', () => {
    const hb = new SharedHeartbeat();
    const m = new WatchdogMonitor(hb, resolveWatchdogOptions());
    hb.beat(ms(1));
    expect(m.check(ms(500)).kind).toBe('warn');
    hb.stop();
    expect(m.check(ms(20_000))).toEqual({ kind: 'none' });
    expect(hb.isShedding()).toBe(false);
    hb.beat(ms(30_000));
    expect(m.check(ms(30_200)).kind).toBe('warn'); // a new episode after restart
  });

  it('error: thresholds out of order or negative are refused', () => {
    expect(() => resolveWatchdogOptions({ warnMs: 500, errorMs: 100 })).toThrow(RangeError);
    expect(() => resolveWatchdogOptions({ exitMs: 1000, errorMs: 2000 })).toThrow(RangeError);
    expect(() => resolveWatchdogOptions({ warnMs: -1 })).toThrow(RangeError);
    expect(resolveWatchdogOptions({ warnMs: undefined }).warnMs).toBe(100);
  });
});
