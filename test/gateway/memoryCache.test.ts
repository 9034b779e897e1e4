import { describe, expect, test } from 'vitest';
import { MemoryCache } from '../../gateway/cache/memoryCache.ts';

// The L1 tier alone, on a fake clock (TTL is the point). Its place in the pipeline is in cache.test.ts.
const cacheAt = (maxEntries: number) => {
  const clock = { ms: 1_000 };
  return { clock, cache: new MemoryCache(maxEntries, 1_000, () => clock.ms) };
};

describe('MemoryCache', () => {
  test('behavior: a hit makes its entry the most recently used, so the least recently used one is evicted', async () => {
    const { cache } = cacheAt(3);
    for (const k of ['a', 'b', 'c']) await cache.set(k, k, 60_000);
    expect(cache.getSync('a')).toBe('a');
    await cache.set('d', 'd', 60_000);
    expect([...'abcd'].map((k) => cache.getSync(k))).toEqual(['a', undefined, 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  test('behavior: one key hit many times in a full cache stays one entry, and the others keep their order', async () => {
    const { cache } = cacheAt(1_000);
    for (let i = 0; i < 1_000; i++) await cache.set(`k${i}`, String(i), 60_000);
    for (let i = 0; i < 5_000; i++) expect(cache.getSync('k500')).toBe('500');
    await cache.set('new', 'n', 60_000);
    expect(cache.size).toBe(1_000);
    expect(cache.getSync('k0')).toBeUndefined();
    expect(cache.getSync('k1')).toBe('1');
    expect(cache.getSync('k500')).toBe('500');
  });

  test('behavior: overwriting a key replaces its value and TTL in place and counts as a use', async () => {
    const { clock, cache } = cacheAt(2);
    await cache.set('a', 'old', 1_000);
    await cache.set('b', 'b', 60_000);
    await cache.set('a', 'new', 60_000);
    await cache.set('c', 'c', 60_000);
    expect(cache.getSync('b')).toBeUndefined();
    clock.ms += 30_000;
    expect(cache.getSync('a')).toBe('new');
    expect(cache.size).toBe(2);
  });

  test('behavior: an expired entry is gone on its next lookup', async () => {
    const { clock, cache } = cacheAt(10);
    await cache.set('a', 'a', 100);
    clock.ms += 99;
    expect(cache.getSync('a')).toBe('a');
    clock.ms += 1;
    expect(cache.getSync('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('behavior: evictBlock drops the entries tagged with that hash only, and a re-tagged entry follows its new hash', async () => {
    const { cache } = cacheAt(10);
    await cache.set('x1', '1', 60_000, '0xaa');
    await cache.set('x2', '2', 60_000, '0xaa');
    await cache.set('y', '3', 60_000, '0xbb');
    await cache.set('untagged', '4', 60_000);
    await cache.set('x2', '2b', 60_000, '0xbb');
    cache.evictBlock('0xaa');
    expect(['x1', 'x2', 'y', 'untagged'].map((k) => cache.getSync(k))).toEqual([undefined, '2b', '3', '4']);
    cache.evictBlock('0xbb');
    expect(['x2', 'y', 'untagged'].map((k) => cache.getSync(k))).toEqual([undefined, undefined, '4']);
    // The evicted entries left the recency list too: filling up evicts nothing that is still live early.
    for (let i = 0; i < 9; i++) await cache.set(`f${i}`, 'f', 60_000);
    expect(cache.getSync('untagged')).toBe('4');
    expect(cache.size).toBe(10);
  });

  test('error: a value over the per-entry cap or a TTL of 0 is not stored', async () => {
    const { cache } = cacheAt(10);
    await cache.set('big', 'x'.repeat(1_001), 60_000);
    await cache.set('zero', 'z', 0);
    expect(cache.getSync('big')).toBeUndefined();
    expect(cache.getSync('zero')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
