/**
 * evm_setIntervalMining's [min, max] (Hardhat's range): each block's wait is a whole number of ms drawn from the
 * range (core/node/devControls.ts `waitInRange`, which `DevControls.nextIntervalWaitMs` calls once per block).
 */
import { describe, expect, it } from 'vitest';
import { waitInRange } from '../../core/node/devControls.ts';

describe('interval mining wait', () => {
  it('default: one number is a fixed wait', () => {
    for (const r of [0, 0.5, 0.999999]) expect(waitInRange([300, 300], () => r)).toBe(300);
  });

  it('behavior: a range reaches both ends and nothing outside, in whole ms', () => {
    expect(waitInRange([200, 400], () => 0)).toBe(200);
    expect(waitInRange([200, 400], () => 0.999999)).toBe(400);
    expect(waitInRange([200, 400], () => 0.5)).toBe(300);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(waitInRange([1, 3], () => i / 1000));
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });
});
