import { PerformanceObserver } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { LeasingLimiter } from '../ratelimit/leasingLimiter.ts';
import { MemoryLimiter } from '../ratelimit/memoryLimiter.ts';
import type { RateLimiter, ScopeBucket } from '../ratelimit/types.ts';
import { RedisLimiter } from '../adapters/node/redisLimiter.ts';
import { quantile } from './load.ts';

/**
 * Decisions run before each measured Redis series. By count, as the HTTP scenarios: the first ~2,000 decisions of a
 * fresh process run through unoptimised ioredis/JIT code, and 500 left a multi-millisecond p99 that a running gateway
 * never sees (measured: p99 4.5-4.8 ms after 500, 0.22-0.30 ms after 3,000, Redis's own time 13-30 us per call).
 */
const WARMUP_DECISIONS = 3_000;

/** Pause windows of the bench process's garbage collector while `fn` runs (start, end in performance.now() ms). */
async function withGcWindows<T>(fn: () => Promise<T>): Promise<{ value: T; gc: [number, number][] }> {
  const gc: [number, number][] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push([e.startTime, e.startTime + e.duration]);
  });
  obs.observe({ entryTypes: ['gc'] });
  try {
    const value = await fn();
    await new Promise((r) => setImmediate(r)); // let the observer deliver the last entries
    return { value, gc };
  } finally {
    obs.disconnect();
  }
}

/**
 * Decision latency p50/p99 (ms) of a limiter, sequential and with `inflight` concurrent callers, plus how many of the
 * slowest 1 % overlapped a GC pause of this (the client) process: the tail's attribution.
 */
async function measure(limiter: RateLimiter, n: number, inflight: number, keys = 1000) {
  const samples: [number, number][] = [];
  let next = 0;
  const bucket = (i: number): ScopeBucket => ({ scope: 'key', id: `bench-${i % keys}`, params: { ratePerSec: 1e9, burst: 1e9 } });
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const s = performance.now();
      await limiter.charge([bucket(i)], [1]);
      samples.push([s, performance.now()]);
    }
  };
  const { gc } = await withGcWindows(() => Promise.all(Array.from({ length: inflight }, worker)));
  const elapsed = (performance.now() - t0) / 1000;
  const times = samples.map(([s, e]) => e - s).sort((a, b) => a - b);
  const p99 = quantile(times, 0.99);
  const slow = samples.filter(([s, e]) => e - s >= p99);
  const slowDuringGc = slow.filter(([s, e]) => gc.some(([gs, ge]) => gs < e && ge > s)).length;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    p50Ms: r(quantile(times, 0.5)),
    p99Ms: r(p99),
    maxMs: r(times.at(-1) ?? NaN),
    decisionsPerSec: Math.round(n / elapsed),
    slowest1Pct: slow.length,
    slowest1PctDuringClientGc: slowDuringGc,
  };
}

/** Redis's own time per limiter script call (INFO commandstats, microseconds), since the last CONFIG RESETSTAT. */
async function serverUsPerCall(redis: Redis): Promise<number | undefined> {
  const line = (await redis.info('commandstats')).split('\n').find((l) => l.startsWith('cmdstat_evalsha:'));
  const m = line?.match(/usec_per_call=([\d.]+)/);
  return m ? Number(m[1]) : undefined;
}

/**
 * The gateway's decision (Redis limiter behind token leases, as `xone-gateway` runs it: decisions spend a lease that
 * is renewed in the background), the Redis round trip itself (every decision on Redis: 1,000 keys, no lease
 * reused), and the in-process limiter for reference.
 */
export async function benchLimiter(redis: Redis, n: number) {
  const rl = new RedisLimiter(redis, 'bench:');
  await measure(rl, WARMUP_DECISIONS, 1);
  await redis.config('RESETSTAT');
  const redisSequential = await measure(rl, n, 1);
  const redisServerUsPerCall = await serverUsPerCall(redis);
  // One key (the bench's tier: 1e9/s, burst 1e9, so leases of 10 ms of refill), sequential.
  const leased = new LeasingLimiter(rl, { maxTokens: 32 });
  await measure(leased, WARMUP_DECISIONS, 1, 1);
  const gatewaySequential = await measure(leased, n, 1, 1);
  return {
    warmupDecisions: WARMUP_DECISIONS,
    /** The decision as the gateway makes it (leases): the target's figure. */
    gatewaySequential,
    redisSequential,
    /** Redis's own execution time per decision during the sequential series: the rest of a decision is client + network. */
    redisServerUsPerCall,
    redis32InFlight: await measure(rl, n * 4, 32),
    memorySequential: await measure(new MemoryLimiter(), n, 1),
  };
}
