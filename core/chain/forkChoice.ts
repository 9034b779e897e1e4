/**
 * Fork choice: whether a stored block should replace the current head (docs/decisions/0031-fork-choice-and-reorg-commit.md).
 * Each consensus engine names its rule (`ConsensusEngine.forkChoice`); the importer asks it, never decides itself.
 *
 * - Total difficulty (Clique, ethash): the heavier chain wins. On equal total difficulty the lower block wins (geth's
 *   guard against selfish mining), and at equal height a coin decides (geth's `ForkChoice.ReorgNeeded`; geth turns its
 *   "preserve local blocks" preference off for Clique, and this node never prefers its own). Clique in-turn blocks
 *   weigh 2 and out-of-turn ones 1, so the chain more in-turn signers extended wins.
 * - Proof of stake (difficulty 0, past the merge: the ethereum/tests networks from Paris on): the consensus layer
 *   decides, which for a block test means the newest imported block is the head, as geth's `ReorgNeeded` answers
 *   once the terminal total difficulty is reached.
 */

/** A chain tip as fork choice sees it. */
export interface ForkTip {
  hash: Uint8Array;
  parentHash: Uint8Array;
  number: bigint;
  /** Total difficulty of the chain ending at this block. */
  td: bigint;
  /** The tip block's own difficulty (0 past the merge). */
  difficulty: bigint;
}

/** An engine's fork-choice rule. */
export interface ForkChoice {
  /** True when `candidate` should become the head instead of `current`. */
  reorgNeeded(current: ForkTip, candidate: ForkTip): boolean;
}

/** The total-difficulty rule with geth's tie-breaks; `random` decides equal height and weight (injectable for tests). */
export function totalDifficultyForkChoice(random: () => number = Math.random): ForkChoice {
  return {
    reorgNeeded(current, candidate) {
      if (candidate.td !== current.td) return candidate.td > current.td;
      if (candidate.number !== current.number) return candidate.number < current.number;
      return random() < 0.5;
    },
  };
}

/** ethash test networks: total difficulty before the merge, the newest block after it (difficulty 0). */
export function proofOfWorkForkChoice(random: () => number = Math.random): ForkChoice {
  const td = totalDifficultyForkChoice(random);
  return {
    reorgNeeded(current, candidate) {
      if (candidate.difficulty === 0n) return true;
      return td.reorgNeeded(current, candidate);
    },
  };
}
