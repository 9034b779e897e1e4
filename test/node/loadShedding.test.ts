/**
 * The node's rule for refusing expensive calls while the main loop is late (core/node/loadShedding.ts). The loop-late
 * flag itself comes from the real watchdog thread (test/node/watchdog.test.ts); the refusal over HTTP with the pool
 * off is in test/rpc/limits.test.ts. Here: when a late loop leads to a refusal, for each combination.
 */
import { describe, expect, it } from 'vitest';
import { shedExpensiveCalls } from '../../core/node/loadShedding.ts';

describe('shedding expensive calls on a late loop', () => {
  it('behavior: with the pool off, every expensive call is refused while the loop is late', () => {
    let late = false;
    const shed = shedExpensiveCalls({ loopLate: () => late });
    expect(shed()).toBe(false);
    late = true;
    expect(shed()).toBe(true);
  });

  it('behavior: with the pool on, only while pool calls wait (a late loop with none waiting is the host, not our work)', () => {
    let late = true;
    let waiting = 0;
    const shed = shedExpensiveCalls({ loopLate: () => late, poolWaiting: () => waiting });
    expect(shed()).toBe(false);
    waiting = 3;
    expect(shed()).toBe(true);
    late = false;
    expect(shed()).toBe(false);
  });
});
