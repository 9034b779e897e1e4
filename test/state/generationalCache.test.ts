import { describe, expect, it } from 'vitest';
import { GenerationalCache } from '../../core/state/store/generationalCache.ts';

const cache = (budget: number) =>
  new GenerationalCache<string, string>(
    budget,
    (_k, v) => v.length,
    () => new Map(),
  );

describe('GenerationalCache', () => {
  it('default: entries stay readable until two turnovers pass them by', () => {
    const c = cache(20); // each generation turns over at 10 bytes
    c.set('a', '12345');
    c.set('b', '12345'); // young holds 10
    c.set('c', '12345'); // would pass 10: a, b become the old generation, c starts the young one
    expect(c.get('a')).toBe('12345'); // old hit: back to the young generation (c, a)
    c.set('d', '12345'); // turnover: b is dropped with the old generation
    expect(c.stats()).toMatchObject({ turnovers: 2, entries: 3, bytes: 15 });
    expect([c.get('b'), c.get('c'), c.get('a'), c.get('d')]).toEqual([undefined, '12345', '12345', '12345']);
  });

  it('behavior: estimated bytes never pass the budget, whatever is put', () => {
    const c = cache(1000);
    for (let i = 0; i < 10_000; i++) {
      c.set(`k${i % 3000}`, 'x'.repeat(1 + (i % 50)));
      if (i % 7 === 0) c.get(`k${(i * 13) % 3000}`);
      if (i % 11 === 0) c.delete(`k${(i * 5) % 3000}`);
      expect(c.stats().bytes).toBeLessThanOrEqual(1000);
    }
  });

  it('behavior: set replaces, delete and clear forget, null is a value', () => {
    const c = new GenerationalCache<string, string | null>(
      100,
      (_k, v) => (v ?? '').length + 1,
      () => new Map(),
    );
    c.set('a', 'one');
    c.set('a', 'two');
    c.set('n', null);
    expect([c.get('a'), c.get('n'), c.get('x')]).toEqual(['two', null, undefined]);
    expect(c.stats().bytes).toBe(5);
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
    c.clear();
    expect(c.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('error: a budget must be positive', () => {
    expect(() => cache(0)).toThrow(RangeError);
  });
});
