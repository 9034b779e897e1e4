import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import type { FailMode } from '../../gateway/config/types.ts';
import { noopMetrics } from '../../gateway/metrics/types.ts';
import { FallbackLimiter } from '../../gateway/ratelimit/fallbackLimiter.ts';
import { MemoryLimiter } from '../../gateway/ratelimit/memoryLimiter.ts';
import type { ChargeResult, RateLimiter, ScopeBucket } from '../../gateway/ratelimit/types.ts';

// The fail-mode wrapper on a fake clock (time is the point here): a shared limiter whose answers arrive when the
// test says, so "slow but healthy", "failed" and "slower than maxWaitMs" are exact, not a loaded host's accident.
// The real-Redis counterparts are in redisLimiter.test.ts.

const bucket: ScopeBucket = { scope: 'key', id: 'k1', params: { ratePerSec: 10, burst: 5 } };

/** The shared bucket's real arithmetic (MemoryLimiter), answering after `delayMs` or failing when `down`. */
class SlowShared implements RateLimiter {
  delayMs = 0;
  down = false;
  readonly inner = new MemoryLimiter();
  charges = 0;
  debited = 0;
  charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    this.charges++;
    if (this.down) return Promise.reject(new Error('connection refused'));
    return new Promise((resolve) => setTimeout(() => resolve(this.inner.charge(buckets, costs)), this.delayMs));
  }
  async debit(b: ScopeBucket, tokens: number): Promise<void> {
    if (this.down) throw new Error('connection refused');
    this.debited += tokens;
    await this.inner.debit(b, tokens);
  }
}

let failures: string[];
const limiter = (shared: RateLimiter, mode: FailMode, maxWaitMs = 1_000) =>
  new FallbackLimiter(shared, {
    failMode: { key: mode, ip: mode },
    timeoutMs: 50,
    maxWaitMs,
    metrics: { ...noopMetrics, limiterBackendFailure: (scope, m) => failures.push(`${scope}:${m}`) },
  });

/** Charges and advances the fake clock until the decision is made; returns it and how long it took. */
async function decide(l: RateLimiter, b = bucket): Promise<{ result: ChargeResult; tookMs: number }> {
  const t0 = Date.now();
  let result: ChargeResult | undefined;
  void l.charge([b], [1]).then((r) => (result = r));
  await vi.advanceTimersByTimeAsync(0);
  while (!result) await vi.advanceTimersByTimeAsync(1);
  return { result, tookMs: Date.now() - t0 };
}

beforeEach(() => {
  vi.useFakeTimers();
  failures = [];
});
afterEach(() => vi.useRealTimers());

test('behavior: a healthy but slow backend never refuses a call on its own: the first call of a fresh key waits and is admitted', async () => {
  // The CI failure this reproduces: the first decision (script load on a loaded host) took longer than 50 ms and the
  // empty local bucket answered 429.
  const shared = new SlowShared();
  shared.delayMs = 300;
  const l = limiter(shared, 'local');
  // A bucket that refills too slowly to matter here: the 6th call finds it empty.
  const slow: ScopeBucket = { scope: 'key', id: 'k2', params: { ratePerSec: 0.01, burst: 5 } };
  const first = await decide(l, slow);
  expect(first.result).toMatchObject({ admitted: 1 });
  expect(first.result.fallback).toBeUndefined();
  expect(first.tookMs).toBeGreaterThanOrEqual(300);
  // Every later slow decision too: the burst of 5 is the shared bucket's, not cut by lateness.
  const rest = [];
  for (let i = 0; i < 5; i++) rest.push((await decide(l, slow)).result.admitted);
  expect(rest).toEqual([1, 1, 1, 1, 0]);
  expect(failures).toEqual([]);
  expect(shared.charges).toBe(6);
});

test('behavior: a late decision that the fail mode grants in full (open) is granted at the first deadline', async () => {
  const shared = new SlowShared();
  shared.delayMs = 300;
  const { result, tookMs } = await decide(limiter(shared, 'open'));
  expect(result).toMatchObject({ admitted: 1, fallback: true });
  expect(tookMs).toBeLessThan(60);
  expect(failures).toEqual(['key:open']);
});

test('behavior: a backend slower than maxWaitMs is a failure: the local bucket (starting empty) decides, then the backend is skipped for the cooldown', async () => {
  const shared = new SlowShared();
  shared.delayMs = 5_000;
  const l = limiter(shared, 'local', 400);
  const first = await decide(l);
  expect(first.result).toMatchObject({ admitted: 0, fallback: true });
  expect(first.tookMs).toBeGreaterThanOrEqual(400);
  expect(first.tookMs).toBeLessThan(450);
  // Within the 250 ms cooldown the shared backend is not asked; the local bucket refills at 10/s.
  await vi.advanceTimersByTimeAsync(100);
  const second = await decide(l);
  expect(second.result).toMatchObject({ admitted: 1, fallback: true });
  expect(second.tookMs).toBe(0);
  expect(shared.charges).toBe(1);
  expect(failures).toEqual(['key:local', 'key:local']);
});

test('behavior: a failed backend: local decisions never grant more than the shared bucket would, and their debt is charged once it answers', async () => {
  const shared = new SlowShared();
  shared.down = true;
  const l = limiter(shared, 'local');
  const admitted: number[] = [];
  // 2 s of outage, one call every 10 ms: the shared bucket would allow 5 + 20 = 25; the local one starts empty.
  for (let i = 0; i < 200; i++) {
    admitted.push((await decide(l)).result.admitted);
    await vi.advanceTimersByTimeAsync(10);
  }
  const total = admitted.reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThan(0);
  expect(total).toBeLessThanOrEqual(5 + 10 * 2);
  expect(l.debtOf(bucket)).toBeGreaterThan(0);
  shared.down = false;
  await vi.advanceTimersByTimeAsync(300);
  // The first decision after the outage goes to the shared bucket and settles what this instance owed.
  await decide(l);
  await vi.advanceTimersByTimeAsync(1);
  expect(l.debtOf(bucket)).toBe(0);
  expect(shared.debited).toBeGreaterThan(0);
});

test('behavior: a failed backend: a client calling less often than the cooldown is admitted at its rate, not refused for the whole outage', async () => {
  // The CI failure this reproduces: after Redis died, a call 100 ms after a refusal reached the limiter past the
  // 250 ms cooldown on a loaded host; each new try of the backend dropped the local bucket, which started empty again.
  const shared = new SlowShared();
  shared.down = true;
  const l = limiter(shared, 'local');
  const admitted: number[] = [];
  // 4 s of outage, one call every 400 ms (each one past the cooldown): 10/s would allow every call after the first.
  for (let i = 0; i < 10; i++) {
    admitted.push((await decide(l)).result.admitted);
    await vi.advanceTimersByTimeAsync(400);
  }
  expect(admitted).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  expect(shared.charges).toBe(10);
  // A long outage still grants no more than the rate: 10 calls at once after 4 s find at most the burst (5).
  const burst = await Promise.all(Array.from({ length: 10 }, () => decide(l)));
  expect(burst.reduce((n, d) => n + d.result.admitted, 0)).toBeLessThanOrEqual(5);
});
