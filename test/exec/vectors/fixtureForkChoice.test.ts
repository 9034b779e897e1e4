/**
 * The BlockchainTests filler's fork choice (core/exec/vectors/fixtureForkChoice.ts): heaviest branch, the
 * earliest-started branch on equal total difficulty whatever the heights, the newest block past the merge.
 */
import { describe, expect, it } from 'vitest';
import type { ForkTip } from '../../../core/chain/forkChoice.ts';
import { fixtureForkChoice } from '../../../core/exec/vectors/fixtureForkChoice.ts';

const id = (n: number): Uint8Array => Uint8Array.of(n);
const tip = (hash: number, parent: number, number: number, td: number, difficulty = 1): ForkTip => ({
  hash: id(hash),
  parentHash: id(parent),
  number: BigInt(number),
  td: BigInt(td),
  difficulty: BigInt(difficulty),
});

describe('fixture fork choice', () => {
  it('default: the heavier branch wins; a lighter one does not', () => {
    const fc = fixtureForkChoice();
    fc.observe(id(0), id(255));
    fc.observe(id(1), id(0)); // A1, head
    expect(fc.reorgNeeded(tip(1, 0, 1, 2), tip(11, 0, 1, 3))).toBe(true);
    expect(fc.reorgNeeded(tip(11, 0, 1, 3), tip(12, 0, 1, 2))).toBe(false);
  });

  it('behavior: equal weight keeps the earlier branch, at any height (never a coin)', () => {
    for (let run = 0; run < 20; run++) {
      const fc = fixtureForkChoice();
      fc.observe(id(0), id(255));
      fc.observe(id(1), id(0)); // branch 0: A1
      // Leaves on the genesis, all as heavy as A1: branch 0 stays the head every time.
      for (let leaf = 2; leaf < 10; leaf++) expect(fc.reorgNeeded(tip(1, 0, 1, 2), tip(leaf, 0, 1, 2))).toBe(false);
      // A lower block of equal weight on a later branch does not win either (geth would take it).
      fc.observe(id(20), id(1)); // A2 on branch 0
      expect(fc.reorgNeeded(tip(20, 1, 2, 4), tip(30, 0, 1, 4))).toBe(false);
    }
  });

  it('behavior: a later branch at the head loses a tie to the earlier one catching up', () => {
    const fc = fixtureForkChoice();
    fc.observe(id(0), id(255));
    fc.observe(id(1), id(0)); // branch 0: A1 (td 2)
    expect(fc.reorgNeeded(tip(1, 0, 1, 2), tip(11, 0, 1, 3))).toBe(true); // branch 1: B1 (td 3) becomes the head
    fc.observe(id(11), id(0));
    expect(fc.reorgNeeded(tip(11, 0, 1, 3), tip(2, 1, 2, 3))).toBe(true); // A2 extends branch 0 to td 3: it wins
  });

  it('behavior: past the merge (difficulty 0) the newest block is the head', () => {
    const fc = fixtureForkChoice();
    fc.observe(id(0), id(255));
    fc.observe(id(1), id(0));
    expect(fc.reorgNeeded(tip(1, 0, 1, 5, 0), tip(2, 0, 1, 5, 0))).toBe(true);
  });
});
