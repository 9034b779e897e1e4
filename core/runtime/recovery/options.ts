/** Options of the sender recovery pool. */
import { availableParallelism } from 'node:os';

export interface RecoveryPoolOptions {
  /** Worker threads (default `defaultRecoveryWorkers()`); `--recovery-workers` on the CLI (0 = in the calling thread). */
  workers?: number;
  /** Batches smaller than this run in the calling thread (default 64, as in the seeds). */
  inlineBelow?: number;
  /** secp256k1 backend preference for the workers ('native' | 'noble'; default automatic). */
  backend?: string;
  /**
   * Start the workers only when the first big batch comes (recovered in the calling thread, one chunk per loop turn,
   * until they are up; they take the rest), and stop them after `idleStopMs` without a batch: a follower at the head
   * sees small blocks for hours, and each idle worker holds ~11 MB (an isolate). Default false: `init()` starts them and they stay.
   */
  onDemand?: boolean;
  /** With `onDemand`: ms without a pooled batch after which the workers stop (default 30 s). */
  idleStopMs?: number;
  /**
   * With `onDemand`: the workers `init()` started stay up until `idleStopMs` passes without a batch, instead of
   * stopping at once. A follower starts behind its peer and imports a burst right away; without this its workers
   * loaded twice, and the chain thread recovered the first blocks itself while they loaded the second time (issue #18).
   */
  keepAfterInit?: boolean;
}

/**
 * Default pool size: cores − 2 as in the seeds (leave the main loop and the chain thread a core each), but at least 2:
 * measured on 2 cores, a pool of 2 was the best pool size in every run and a pool of 1 was slower than recovering in
 * the calling thread (docs/decisions/0014-recovery-pool-size.md). `--recovery-workers 0` recovers in the calling thread.
 */
export function defaultRecoveryWorkers(cores: number = availableParallelism()): number {
  return Math.max(2, cores - 2);
}

/** Batches under this size are recovered in the calling thread. */
export const DEFAULT_INLINE_BELOW = 64;
