/**
 * Proof-of-work era rules still needed without checking seals: the difficulty a block must declare (the fixtures'
 * pre-merge networks and the execution-apis chain use ethash) and the block/ommer rewards. Clique and post-merge
 * blocks use neither. Formulas from the Yellow Paper and EIP-2 / EIP-100 with the bomb delays of EIP-649, EIP-1234,
 * EIP-2384, EIP-3554, EIP-4345 and EIP-5133.
 */
import { isForkActive, type Fork } from '../../chain/forks.ts';

const MIN_DIFFICULTY = 131_072n;

function bombDelay(fork: Fork): bigint {
  if (isForkActive(fork, 'GrayGlacier')) return 11_400_000n;
  if (isForkActive(fork, 'ArrowGlacier')) return 10_700_000n;
  if (isForkActive(fork, 'London')) return 9_700_000n;
  if (isForkActive(fork, 'MuirGlacier')) return 9_000_000n;
  if (isForkActive(fork, 'Constantinople')) return 5_000_000n;
  if (isForkActive(fork, 'Byzantium')) return 3_000_000n;
  return 0n;
}

/** The parent fields the difficulty reads. */
export interface DifficultyParent {
  difficulty: bigint;
  timestamp: bigint;
  number: bigint;
  /** True when the parent has ommers (ommersHash differs from the empty list's). */
  hasOmmers: boolean;
}

/** The ethash difficulty of a block at `number`/`timestamp` on top of `parent`, under `fork`. */
export function ethashDifficulty(parent: DifficultyParent, timestamp: bigint, fork: Fork): bigint {
  const x = parent.difficulty / 2048n;
  const dt = timestamp - parent.timestamp;
  let diff: bigint;
  if (isForkActive(fork, 'Byzantium')) {
    let y = (parent.hasOmmers ? 2n : 1n) - dt / 9n;
    if (y < -99n) y = -99n;
    diff = parent.difficulty + x * y;
  } else if (isForkActive(fork, 'Homestead')) {
    let y = 1n - dt / 10n;
    if (y < -99n) y = -99n;
    diff = parent.difficulty + x * y;
  } else {
    diff = dt < 13n ? parent.difficulty + x : parent.difficulty - x;
  }
  if (diff < MIN_DIFFICULTY) diff = MIN_DIFFICULTY;
  const number = parent.number + 1n;
  const delay = bombDelay(fork);
  const fake = number >= delay ? number - delay : 0n;
  const period = fake / 100_000n;
  if (period > 1n) diff += 2n ** (period - 2n);
  return diff;
}

/** The static block reward of a proof-of-work block under `fork` (wei). */
export function blockReward(fork: Fork): bigint {
  if (isForkActive(fork, 'Constantinople')) return 2_000_000_000_000_000_000n;
  if (isForkActive(fork, 'Byzantium')) return 3_000_000_000_000_000_000n;
  return 5_000_000_000_000_000_000n;
}
