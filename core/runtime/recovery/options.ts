/** Options of the sender recovery pool. */
import { availableParallelism } from 'node:os';

export interface RecoveryPoolOptions {
  /** Worker threads (default `defaultRecoveryWorkers()`); `--recovery-workers` on the CLI. */
  workers?: number;
  /** Batches smaller than this run in the calling thread (default 64, as in the seeds). */
  inlineBelow?: number;
  /** secp256k1 backend preference for the workers ('native' | 'noble'; default automatic). */
  backend?: string;
}

/**
 * Default pool size: cores − 2 (the seeds' rule: leave the main loop and the chain thread a core each), but never
 * fewer than 1. See the recovery pool decision record for the measurement.
 */
export function defaultRecoveryWorkers(cores: number = availableParallelism()): number {
  return Math.max(1, cores - 2);
}

/** Batches under this size are recovered in the calling thread. */
export const DEFAULT_INLINE_BELOW = 64;
