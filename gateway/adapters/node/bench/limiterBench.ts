import type { Redis } from 'ioredis';
import { MemoryLimiter } from '../../../ratelimit/memoryLimiter.ts';
import type { RateLimiter, ScopeBucket } from '../../../ratelimit/types.ts';
import { RedisLimiter } from '../redisLimiter.ts';
import { quantile } from './load.ts';

/** Decision latency p50/p99 (ms) of a limiter, sequential and with `inflight` concurrent callers. */
async function measure(limiter: RateLimiter, n: number, inflight: number): Promise<{ p50Ms: number; p99Ms: number; decisionsPerSec: number }> {
  const times: number[] = [];
  let next = 0;
  const bucket = (i: number): ScopeBucket => ({ scope: 'key', id: `bench-${i % 1000}`, params: { ratePerSec: 1e9, burst: 1e9 } });
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const s = performance.now();
      await limiter.charge([bucket(i)], [1]);
      times.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50Ms: r(quantile(times, 0.5)), p99Ms: r(quantile(times, 0.99)), decisionsPerSec: Math.round(n / elapsed) };
}

/** Redis limiter (one Lua round trip per decision) and the in-process limiter for reference. */
export async function benchLimiter(redis: Redis, n: number) {
  const rl = new RedisLimiter(redis, 'bench:');
  await measure(rl, 500, 1);
  return {
    redisSequential: await measure(rl, n, 1),
    redis32InFlight: await measure(rl, n * 4, 32),
    memorySequential: await measure(new MemoryLimiter(), n, 1),
  };
}
