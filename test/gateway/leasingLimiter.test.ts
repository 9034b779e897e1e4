import { expect, test } from 'vitest';
import { LeasingLimiter } from '../../gateway/ratelimit/leasingLimiter.ts';
import { MemoryLimiter } from '../../gateway/ratelimit/memoryLimiter.ts';
import type { ChargeResult, RateLimiter, ScopeBucket } from '../../gateway/ratelimit/types.ts';

// Token leases on a fake clock (time is the point): the shared bucket is the real GCRA arithmetic (MemoryLimiter)
// that both instances charge, counting the round trips. The real-Redis counterpart is redisLimiter.test.ts.

let clock = 1_000_000;
const now = () => clock;

class CountingShared implements RateLimiter {
  readonly inner = new MemoryLimiter({ now });
  /** Round trips: charges and lease fetches. */
  charges = 0;
  credits = 0;
  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    this.charges++;
    return this.inner.charge(buckets, costs);
  }
  async lease(b: ScopeBucket, tokens: number): Promise<ChargeResult> {
    this.charges++;
    return this.inner.lease(b, tokens);
  }
  async debit(b: ScopeBucket, tokens: number): Promise<void> {
    if (tokens < 0) this.credits -= tokens;
    await this.inner.debit(b, tokens);
  }
}

/** Lets the fetches started by the last calls answer (the shared bucket answers in microtasks). */
const settle = () => new Promise<void>((r) => setImmediate(r));

const bucket = (burst: number, ratePerSec = 20, id = 'k'): ScopeBucket => ({ scope: 'key', id, params: { ratePerSec, burst } });

test('behavior: two instances leasing from one bucket admit exactly the bucket math (never more, at most one lease per instance less), with a tenth of the round trips', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const a = new LeasingLimiter(shared, { maxTokens: 32, now });
  const c = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(1000);
  expect(a.leaseSize(b)).toBe(10);
  let admitted = 0;
  let calls = 0;
  // 4,000 calls over 10 s (400/s against 20/s), alternating instances, 10 at a time.
  for (let step = 0; step < 400; step++) {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ((step + i) % 2 ? a : c).charge([b], [1])));
    admitted += results.filter((r) => r.admitted === 1).length;
    calls += 10;
    clock += 25;
  }
  const elapsed = 400 * 25;
  const allowed = 1000 + (20 * elapsed) / 1000;
  expect(admitted).toBeLessThanOrEqual(allowed);
  expect(admitted).toBeGreaterThanOrEqual(allowed - 2 * 10);
  // Round trips: one per lease of 10 while the bucket had room, then the refusals are answered from the cached denial.
  expect(shared.charges).toBeLessThan(calls / 5);
});

test('behavior: a lease is spent without a round trip, renewed in the background before it runs out, and its tokens run out with the shared bucket refill', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  // 20/s: a lease of 10, one token every 50 ms.
  const b = bucket(1000);
  expect((await l.charge([b], [1])).admitted).toBe(1);
  expect(shared.charges).toBe(1);
  expect(l.heldFor(b)).toBe(9);
  // The next calls come from the lease, synchronously; the headers count the lease as remaining.
  for (let i = 0; i < 4; i++) {
    const r = l.chargeNow([b], [1]);
    expect(r?.admitted).toBe(1);
    expect(r?.scopes[0]?.remaining).toBe(998 - i);
  }
  expect(shared.charges).toBe(1);
  // This one leaves 4, under half a lease: the lease is renewed in the background (the call does not wait for it).
  expect(l.chargeNow([b], [1])?.admitted).toBe(1);
  expect(shared.charges).toBe(2);
  await settle();
  expect(l.heldFor(b)).toBe(10);
  // 400 ms later the first lease's slots on the shared bucket are all but 2 refilled (its TAT was 500 ms away): of its
  // 4 unspent tokens 2 are left; the renewal's 6 sit after them (TAT 800 ms away) and are all left.
  clock += 400;
  expect(l.heldFor(b)).toBe(8);
  // Past the last TAT the shared bucket is full again: nothing is left to spend, the next call fetches.
  clock += 400;
  expect(l.heldFor(b)).toBe(0);
  expect(l.chargeNow([b], [1])).toBeUndefined();
  expect((await l.charge([b], [1])).admitted).toBe(1);
  expect(shared.charges).toBe(3);
  // Closing gives the unspent 9 back to the shared bucket.
  await l.close();
  expect(shared.credits).toBe(9);
});

test('behavior: whatever the timing, instances leasing one bucket never admit a call the bucket itself would refuse', async () => {
  // A slow bucket (lease 10) and a fast one (1,024,000/s: a lease of 102,400 tokens, 100 ms of refill); intervals
  // and clock steps are binary fractions so that the reference and the shared bucket compute exactly the same.
  for (const params of [
    { ratePerSec: 20, burst: 1000 },
    { ratePerSec: 1_024_000, burst: 10_240_000 },
  ]) {
    clock = 1_000_000;
    const shared = new CountingShared();
    // Every admitted call is charged here when it is admitted: the bucket's own arithmetic, which must never refuse it.
    const truth = new MemoryLimiter({ now });
    const instances = [0, 1, 2].map(() => new LeasingLimiter(shared, { maxTokens: 32, now }));
    const b: ScopeBucket = { scope: 'key', id: 'k', params };
    const size = instances[0]?.leaseSize(b) as number;
    const interval = 1000 / params.ratePerSec;
    const quantum = interval / 4;
    const check = async (l: LeasingLimiter, cost: number) => {
      const r = l.chargeNow([b], [cost]) ?? (await l.charge([b], [cost]));
      if (r.admitted === 1) expect(truth.chargeSync([b], [cost]).admitted).toBe(1);
      return r.admitted === 1;
    };
    // The worst moment first: a lease taken on a full bucket and left idle until just before its TAT, then partly
    // spent (not enough to renew it), while another instance draws the whole bucket.
    const [a, c] = instances as [LeasingLimiter, LeasingLimiter];
    await check(a, 1);
    clock += (size - 1) * interval;
    await check(a, Math.floor(size / 2) - 1);
    while (await check(c, Math.ceil(size / 2)));
    clock += 10 * size * interval;
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let admitted = 0;
    let refused = 0;
    for (let step = 0; step < 4000; step++) {
      const l = instances[Math.floor(rnd() * 3)] as LeasingLimiter;
      const cost = 1 + Math.floor(rnd() * (size / 2));
      if (await check(l, cost)) admitted++;
      else refused++;
      // Renewals answer at once or some calls later.
      if (rnd() < 0.5) await settle();
      // Mostly calls faster than the refill; sometimes an idle gap up to a lease's life (the worst moment to spend
      // an old lease is just before its slots are refilled).
      const gap = rnd() < 0.05 ? rnd() * size * interval * 1.2 : rnd() * cost * interval * 1.5;
      clock += Math.round(gap / quantum) * quantum;
    }
    // Both happened: the bucket was drawn empty and refilled.
    expect(admitted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  }
});

test('behavior: a fast bucket (the bench tier, 1e9/s) at one call at a time never waits for the backend after its first call', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(1e9, 1e9);
  // 10 ms of refill: 1 % of the burst (100 ms of refill would be more).
  expect(l.leaseSize(b)).toBe(1e7);
  expect((await l.charge([b], [1])).admitted).toBe(1);
  let waited = 0;
  const calls = 10_000;
  for (let i = 0; i < calls; i++) {
    clock += 0.7;
    const r = l.chargeNow([b], [1]);
    if (r) expect(r.admitted).toBe(1);
    else {
      waited++;
      await l.charge([b], [1]);
    }
    // A renewal's round trip answers between two calls.
    await settle();
  }
  expect(waited).toBe(0);
  // One renewal per half a lease (5 ms, about 7 calls), not a round trip per call.
  expect(shared.charges).toBeLessThan(calls / 5);
});

test('behavior: a long idle lease never lets a client exceed the burst (the lease ends when the bucket is full again)', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(1000);
  await l.charge([b], [1]);
  clock += 3_600_000;
  let admitted = 0;
  for (let i = 0; i < 1100; i++) admitted += (await l.charge([b], [1])).admitted;
  expect(admitted).toBe(1000);
});

test('behavior: concurrent calls wait for one fetch at a time (the next asks for what they need); an empty bucket refuses locally until its retry-after', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(200, 10);
  expect(l.leaseSize(b)).toBe(2);
  const first = await Promise.all(Array.from({ length: 6 }, () => l.charge([b], [1])));
  expect(first.every((r) => r.admitted === 1)).toBe(true);
  // The first call's lease (2 tokens) serves two; the other four waited and are served by one lease of 4.
  expect(shared.charges).toBe(2);
  // Drain the bucket, then: refused with the shared bucket's retry-after, without asking it again.
  while ((await l.charge([b], [1])).admitted === 1);
  const charges = shared.charges;
  const refused = l.chargeNow([b], [1]);
  expect(refused?.admitted).toBe(0);
  expect(refused?.denied?.retryAfterMs).toBeGreaterThan(0);
  expect(refused?.denied?.retryAfterMs).toBeLessThanOrEqual(100);
  expect(shared.charges).toBe(charges);
  clock += 100;
  expect((await l.charge([b], [1])).admitted).toBe(1);
  expect(shared.charges).toBe(charges + 1);
});

test('behavior: small buckets, several buckets and calls costing more than a lease are decided on the backend every time', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  await l.charge([bucket(30)], [1]);
  await l.charge([bucket(30)], [1]);
  await l.charge([bucket(1000), bucket(1000, 20, 'ip')], [1]);
  const big = await l.charge([bucket(1000)], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  expect(big.admitted).toBe(11);
  expect(shared.charges).toBe(4);
  expect(new LeasingLimiter(shared, { maxTokens: 0, now }).leaseSize(bucket(1e9))).toBe(0);
});

test('behavior: a batch is admitted in order while the lease and the bucket hold it, the rest refused', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(500, 1);
  // Lease size 5; the bucket holds 500: drain it to 3 tokens.
  await shared.inner.debit(b, 497);
  const r = await l.charge([b], [2, 2, 2]);
  expect(r.admitted).toBe(1);
  expect(r.denied?.cost).toBe(2);
  expect(r.denied?.retryAfterMs).toBeGreaterThan(0);
});

test('behavior: the default tier (100/s, burst 200) leases 10 tokens, a small tier (50/100) 5, the anonymous tier (20/40) 2: at twice the rate two instances admit the bucket math; within the rate the 5-token lease makes no call wait after the first, in under half a round trip per call', async () => {
  for (const [ratePerSec, burst] of [
    [100, 200],
    [50, 100],
    [20, 40],
  ] as const) {
    const b = bucket(burst, ratePerSec);
    const size = new LeasingLimiter(new CountingShared(), { maxTokens: 32, now }).leaseSize(b);
    // 100 ms of refill within 5 % of the burst (2 tokens at least).
    expect(size).toBe({ 100: 10, 50: 5, 20: 2 }[ratePerSec]);
    // Below a burst of 40 a 2-token lease would be more than 5 % of it: decided on the backend.
    expect(new LeasingLimiter(new CountingShared(), { maxTokens: 32, now }).leaseSize(bucket(39, ratePerSec))).toBe(0);
    for (const speed of [2, 0.8]) {
      clock = 1_000_000;
      const shared = new CountingShared();
      const truth = new MemoryLimiter({ now });
      const a = new LeasingLimiter(shared, { maxTokens: 32, now });
      const c = new LeasingLimiter(shared, { maxTokens: 32, now });
      const step = 1000 / (ratePerSec * speed);
      let admitted = 0;
      let waited = 0;
      const calls = 2_000;
      // Alternating instances, renewals answered before the next call.
      for (let i = 0; i < calls; i++) {
        const l = i % 2 ? a : c;
        let r = l.chargeNow([b], [1]);
        if (!r) {
          waited++;
          r = await l.charge([b], [1]);
        }
        if (r.admitted === 1) {
          admitted++;
          expect(truth.chargeSync([b], [1]).admitted).toBe(1);
        }
        await settle();
        clock += step;
      }
      const allowed = Math.min(calls, burst + (ratePerSec * calls * step) / 1000);
      expect(admitted).toBeLessThanOrEqual(allowed);
      // At most one lease per instance unspent.
      expect(admitted).toBeGreaterThanOrEqual(allowed - 2 * size);
      if (speed < 1) {
        // Each instance's first call fetched its lease; every other call was answered from one.
        if (size >= 5) {
          // Each instance's first call fetched its lease; every other call was answered from one (renewed ahead).
          expect(waited).toBe(2);
          expect(shared.charges).toBeLessThan(calls / 2);
        } else {
          // 2 tokens are 2 intervals of refill: a lease taken on a full bucket often runs out before the instance's
          // next call, so about a quarter of the calls still wait (before: every call), 0.63 round trips per call.
          expect(waited).toBeLessThan(calls / 3);
          expect(shared.charges).toBeLessThan(calls * 0.7);
        }
      }
    }
  }
});
