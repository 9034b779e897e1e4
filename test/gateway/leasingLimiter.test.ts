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
  charges = 0;
  credits = 0;
  async charge(buckets: readonly ScopeBucket[], costs: readonly number[]): Promise<ChargeResult> {
    this.charges++;
    return this.inner.charge(buckets, costs);
  }
  async debit(b: ScopeBucket, tokens: number): Promise<void> {
    if (tokens < 0) this.credits -= tokens;
    await this.inner.debit(b, tokens);
  }
}

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

test('behavior: a lease is spent without a round trip, ends at the shared bucket TAT and gives its unspent tokens back', async () => {
  clock = 1_000_000;
  const shared = new CountingShared();
  const l = new LeasingLimiter(shared, { maxTokens: 32, now });
  const b = bucket(1000);
  expect((await l.charge([b], [1])).admitted).toBe(1);
  expect(shared.charges).toBe(1);
  expect(l.heldFor(b)).toBe(9);
  // The next 9 calls come from the lease, synchronously; the headers count the lease as remaining.
  for (let i = 0; i < 9; i++) {
    const r = l.chargeNow([b], [1]);
    expect(r?.admitted).toBe(1);
    expect(r?.scopes[0]?.remaining).toBe(998 - i);
  }
  expect(l.chargeNow([b], [1])).toBeUndefined();
  expect(shared.charges).toBe(1);
  await l.charge([b], [1]);
  expect(shared.charges).toBe(2);
  expect(l.heldFor(b)).toBe(9);
  // 10 tokens at 20/s come back in 500 ms: past the TAT, the lease's 9 would add to a full bucket: it ends, and the
  // 9 go back as a credit (here clamped by the full bucket, as they must be).
  clock += 1_000;
  expect(l.chargeNow([b], [1])).toBeUndefined();
  await l.charge([b], [1]);
  expect(shared.credits).toBe(9);
  expect(shared.charges).toBe(3);
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
  await l.charge([bucket(40)], [1]);
  await l.charge([bucket(40)], [1]);
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
