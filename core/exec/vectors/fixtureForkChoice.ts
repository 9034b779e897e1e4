/**
 * The fork choice ethereum/tests' BlockchainTests were filled with (retesteth's chain manager), for `xone blocktest`.
 * The filler keeps one chain per branch, numbered in the order the branches appeared (a block whose parent is a
 * branch's tip extends that branch; any other parent starts a new one), and after each block makes the heaviest
 * branch the head, the earliest-numbered one on equal total difficulty; past the merge (difficulty 0) the branch of
 * the newest imported block is the head. geth breaks the same ties by height, then by a coin, which the fixtures
 * never depend on for their final head but which made a runner built on it answer differently run to run.
 */
import type { ForkChoice, ForkTip } from '../../chain/forkChoice.ts';
import { bytesToHex } from '../../primitives/hex.ts';

/** The filler's fork choice; `observe` each block as it is accepted (the genesis first). */
export interface FixtureForkChoice extends ForkChoice {
  observe(hash: Uint8Array, parentHash: Uint8Array): void;
}

export function fixtureForkChoice(): FixtureForkChoice {
  const branchOf = new Map<string, number>();
  const tips: string[] = [];
  const observe = (hash: Uint8Array, parentHash: Uint8Array): number => {
    const key = bytesToHex(hash);
    const known = branchOf.get(key);
    if (known !== undefined) return known;
    const parentKey = bytesToHex(parentHash);
    const parentBranch = branchOf.get(parentKey);
    const branch = parentBranch !== undefined && tips[parentBranch] === parentKey ? parentBranch : tips.length;
    tips[branch] = key;
    branchOf.set(key, branch);
    return branch;
  };
  const branch = (tip: ForkTip): number => observe(tip.hash, tip.parentHash);
  return {
    observe: (hash, parentHash) => void observe(hash, parentHash),
    reorgNeeded(current, candidate) {
      const candidateBranch = branch(candidate);
      if (candidate.difficulty === 0n) return true;
      if (candidate.td !== current.td) return candidate.td > current.td;
      return candidateBranch < branch(current);
    },
  };
}
