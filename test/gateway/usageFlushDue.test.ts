import { expect, test } from 'vitest';
import type { Identity } from '../../gateway/env.ts';
import { noopMetrics } from '../../gateway/metrics/types.ts';
import type { RpcCall } from '../../gateway/rpc/types.ts';
import { MemoryUsageStore } from '../../gateway/usage/memoryUsageStore.ts';
import { UsageWriteError, type UsageDelta, type UsageStore } from '../../gateway/usage/types.ts';
import { UsageRecorder } from '../../gateway/usage/usageRecorder.ts';

// Workers have no timers between requests: the recorder schedules nothing (`timers: false`) and hands each request
// the flush to keep alive (`flushDue`). A write that reached the store for some keys only keeps just the others.
const who = (id: string) => ({ key: { id }, tierName: 'default' }) as unknown as Identity;
const calls = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => ({ index: i, id: i, method: 'eth_chainId', cost: 1, cache: 'none', limiter: { decision: 'allow' } }) as unknown as RpcCall,
  );

test('behavior: without timers, one armed flush at a time writes the pending counts; a partial write keeps only what failed', async () => {
  const memory = new MemoryUsageStore();
  let failFor: string | undefined = 'k2';
  const writes: UsageDelta[][] = [];
  const store: UsageStore = {
    async add(deltas) {
      writes.push([...deltas]);
      const ok = deltas.filter((d) => d.keyId !== failFor);
      await memory.add(ok);
      if (ok.length < deltas.length)
        throw new UsageWriteError(
          deltas.filter((d) => d.keyId === failFor),
          new Error('object down'),
        );
    },
    read: (k, d) => memory.read(k, d),
  };
  const rec = new UsageRecorder({ store, metrics: noopMetrics, timers: false, flushMs: 10 });
  rec.record(who('k1'), calls(3));
  rec.record(who('k2'), calls(2));
  const first = rec.flushDue();
  expect(first).toBeDefined();
  // Armed already: a second request keeps nothing alive of its own.
  expect(rec.flushDue()).toBeUndefined();
  await first;
  failFor = undefined;
  const second = rec.flushDue();
  expect(second).toBeDefined();
  await second;
  expect(rec.flushDue()).toBeUndefined();
  const read = async (k: string) => (await rec.read(k, 1))[0]?.methods.get('eth_chainId');
  expect(await read('k1')).toEqual({ calls: 3, computeUnits: 3, refused: 0 });
  expect(await read('k2')).toEqual({ calls: 2, computeUnits: 2, refused: 0 });
  // The retry carried k2 only: k1 was not written twice.
  expect(writes.at(-1)?.map((d) => d.keyId)).toEqual(['k2']);
});
