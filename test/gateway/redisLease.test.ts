import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisLimiter } from '../../gateway/adapters/node/redisLimiter.ts';
import { gcraLease } from '../../gateway/ratelimit/gcra.ts';
import { LeasingLimiter } from '../../gateway/ratelimit/leasingLimiter.ts';
import type { ScopeBucket } from '../../gateway/ratelimit/types.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

// Token leases on a real redis-server: the lease script against gcra.ts's arithmetic, and leasing instances on it
// with the real clock. Exactness on a fake clock is leasingLimiter.test.ts.

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
}, 30_000);
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const bucket = (id: string, ratePerSec: number, burst: number): ScopeBucket => ({ scope: 'key', id, params: { ratePerSec, burst } });

async function redisNowMs(): Promise<number> {
  const [s, us] = await client.time();
  return Number(s) * 1000 + Number(us) / 1000;
}

test('behavior: the lease script grants up to what the bucket holds in one step, with an exact reset, as gcraLease does', async () => {
  const rl = new RedisLimiter(client, 'lease-a:');
  // 10 million tokens of a 1e9/s bucket: one call, 10 ms of refill.
  const big = bucket('big', 1e9, 1e9);
  const r = await rl.lease(big, 1e7);
  expect(r.admitted).toBe(1e7);
  expect(r.denied).toBeUndefined();
  expect(r.scopes[0]?.resetMs).toBeGreaterThan(9.9);
  expect(r.scopes[0]?.resetMs).toBeLessThanOrEqual(10);
  expect(r.scopes[0]?.remaining).toBe(1e9 - 1e7);
  // A slow bucket: the reset is fractional (not rounded up), and a lease past what is left grants the rest and
  // says when the next token comes.
  const slow = bucket('slow', 3, 10);
  const t0 = await redisNowMs();
  const first = await rl.lease(slow, 4);
  expect(first.admitted).toBe(4);
  expect(Number.isInteger(first.scopes[0]?.resetMs)).toBe(false);
  const expected = gcraLease(slow, 4, t0, []);
  expect(first.scopes[0]?.resetMs).toBeLessThanOrEqual(expected.scopes[0]?.resetMs as number);
  expect(first.scopes[0]?.resetMs).toBeGreaterThan((expected.scopes[0]?.resetMs as number) - 50);
  const rest = await rl.lease(slow, 20);
  expect(rest.admitted).toBe(6);
  expect(rest.denied?.retryAfterMs).toBeGreaterThan(0);
  expect(rest.denied?.retryAfterMs).toBeLessThanOrEqual(334);
  const none = await rl.lease(slow, 1);
  expect(none.admitted).toBe(0);
  expect(none.denied?.retryAfterMs).toBeGreaterThan(0);
  // Charges and leases share the key: the bucket is empty for a charge too.
  expect((await rl.charge([slow], [1])).admitted).toBe(0);
});

test('behavior: two instances leasing one real Redis bucket admit the burst and never more than burst + rate × elapsed, in a few round trips', async () => {
  const b = bucket('pair', 2_000, 20_000);
  const make = () => {
    const r = new Redis(redis.url);
    const inner = new RedisLimiter(r, 'lease-b:');
    let trips = 0;
    const counted = Object.assign(Object.create(inner) as RedisLimiter, {
      lease: (bk: ScopeBucket, n: number) => {
        trips++;
        return inner.lease(bk, n);
      },
      charge: (bs: readonly ScopeBucket[], cs: readonly number[]) => {
        trips++;
        return inner.charge(bs, cs);
      },
    });
    return { r, l: new LeasingLimiter(counted, { maxTokens: 32 }), trips: () => trips };
  };
  const x = make();
  const y = make();
  // A lease is 100 ms of refill: 200 tokens.
  expect(x.l.leaseSize(b)).toBe(200);
  const t0 = await redisNowMs();
  let admitted = 0;
  let calls = 0;
  for (let round = 0; round < 60; round++) {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const cost = 1 + ((round * 50 + i) % 20);
        return ((i % 2 ? x : y).l.charge([b], [cost]) as Promise<{ admitted: number }>).then((r) => (r.admitted ? cost : 0));
      }),
    );
    admitted += results.reduce((a, c) => a + c, 0);
    calls += 50;
  }
  const elapsed = (await redisNowMs()) - t0;
  const allowed = 20_000 + (2_000 * elapsed) / 1000;
  expect(admitted).toBeLessThanOrEqual(allowed);
  // At most one lease per instance unspent.
  expect(admitted).toBeGreaterThanOrEqual(20_000 - 2 * 200);
  expect(x.trips() + y.trips()).toBeLessThan(calls / 5);
  await x.l.close();
  await y.l.close();
  x.r.disconnect();
  y.r.disconnect();
});

test('behavior: a 1e9/s key (the bench tier) called one at a time waits for Redis on its first call only, renewed in the background', async () => {
  const rl = new RedisLimiter(client, 'lease-c:');
  // Burst 1e11: a lease of 100 ms of refill, renewed when half of it is left; a loaded host answers well within that.
  const b = bucket('fast', 1e9, 1e11);
  const l = new LeasingLimiter(rl, { maxTokens: 32 });
  expect(l.leaseSize(b)).toBe(1e8);
  expect((await l.charge([b], [1])).admitted).toBe(1);
  let waited = 0;
  const end = performance.now() + 400;
  let calls = 0;
  while (performance.now() < end) {
    const r = l.chargeNow([b], [1]);
    if (!r) {
      waited++;
      await l.charge([b], [1]);
    } else expect(r.admitted).toBe(1);
    calls++;
    await new Promise((r) => setTimeout(r, 1));
  }
  expect(calls).toBeGreaterThan(20);
  expect(waited).toBeLessThanOrEqual(calls / 10);
  await l.close();
});
