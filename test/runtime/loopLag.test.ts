import { describe, expect, it } from 'vitest';
import { createCapturingLogger } from '../../core/log/index.ts';
import { createMetrics } from '../../core/metrics/index.ts';
import { SharedHeartbeat, sharedClockUs } from '../../core/runtime/heartbeat.ts';
import { LoopLagProbe } from '../../core/runtime/loopLag.ts';
import { Watchdog } from '../../core/runtime/watchdog/index.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const spin = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe('LoopLagProbe', () => {
  it('default: a 300 ms block is logged as a stall, sets the gauge and histogram, and beats resume', async () => {
    const logger = createCapturingLogger();
    const metrics = createMetrics({ processMetrics: false });
    const heartbeat = new SharedHeartbeat();
    const probe = new LoopLagProbe({}, { logger, metrics, heartbeat });
    probe.start();
    try {
      await sleep(120);
      const before = heartbeat.lastBeatUs();
      expect(before).toBeGreaterThan(0n);
      // A busy host can make the loop late on its own before the block: read only what is logged after it starts.
      const logged = logger.records.length;
      spin(300);
      await sleep(120);
      const stall = logger.records.slice(logged).find((r) => r.msg.startsWith('event loop stall '));
      expect(stall?.level).toBe('warn');
      expect(Number(stall?.ctx.lag_ms)).toBeGreaterThanOrEqual(200);
      expect(stall?.msg).toBe(`event loop stall ${stall?.ctx.lag_ms} ms`);
      expect(probe.maxLagMs()).toBeGreaterThanOrEqual(200);
      expect(heartbeat.lastBeatUs()).toBeGreaterThan(before);
      const text = await metrics.register.metrics();
      expect(text).toMatch(/^xone_loop_lag_ms \d/m);
      expect(Number(/^xone_loop_lag_seconds_count (\d+)/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
    } finally {
      probe.close();
    }
  });
});

describe('Watchdog (in-process, real thread)', () => {
  it('behavior: isShedding() turns on during a short block and off after', { timeout: 60_000 }, async () => {
    const heartbeat = new SharedHeartbeat();
    const probe = new LoopLagProbe({}, { heartbeat });
    // exitMs 0: never kill the test runner; the kill path is tested in a child process (watchdogProcess.test.ts).
    const watchdog = new Watchdog(heartbeat, { warnMs: 100, errorMs: 5000, exitMs: 0, logLevel: 'fatal' });
    probe.start();
    await watchdog.init();
    // The thresholds and timing rules are the monitor's, tested with a fake clock (watchdogMonitor.test.ts); here the point
    // is the real thread raising and lowering the flag, so the only bound is one no host load can break: it is never
    // raised before the last beat is warnMs + one probe interval (50 ms) old. The caps below only turn a hang into a
    // failure.
    const until = async (cond: () => boolean, capMs: number): Promise<boolean> => {
      const cap = performance.now() + capMs;
      while (!cond() && performance.now() < cap) await sleep(20);
      return cond();
    };
    try {
      // A loaded host can stall the loop by itself before the test starts: begin from a calm state.
      expect(await until(() => !watchdog.isShedding(), 20_000)).toBe(true);
      // Spin (the loop is blocked, the probe cannot beat) until the watchdog thread raises the flag.
      const cap = performance.now() + 20_000;
      let seenAfterBeatMs = -1;
      while (performance.now() < cap && seenAfterBeatMs < 0)
        if (watchdog.isShedding()) seenAfterBeatMs = Number(sharedClockUs() - heartbeat.lastBeatUs()) / 1000;
      expect(seenAfterBeatMs).toBeGreaterThanOrEqual(100 + 50);
      expect(await until(() => !watchdog.isShedding(), 20_000)).toBe(true);
    } finally {
      probe.close();
      await watchdog.close();
    }
  });
});
