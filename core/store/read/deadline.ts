/**
 * A read deadline. Point reads check it once; scans check it between rows, so a long eth_getLogs cannot hold a
 * read snapshot (and with it WAL checkpoints) past its budget, nor run past the deadline of the call that asked.
 * Three things end a read early, each with StoreTimeoutError (`STORE_READ_TIMEOUT`): the store's own budget, the
 * caller's deadline (an epoch time: a synchronous scan cannot wait for a timer, so it compares the clock), and the
 * caller's AbortSignal (fired by whoever gave up: a client gone, a pool worker told to stop).
 */
import { StoreTimeoutError } from '../errors.ts';

/** How one read may end early, besides the store's default budget. */
export interface ReadLimits {
  /** Budget of this read in ms (default: the store's `readDeadlineMs`). */
  budgetMs?: number;
  /** The caller's deadline in epoch milliseconds (`Date.now()` scale), e.g. a JSON-RPC call's deadline. */
  deadline?: number;
  /** Checked between rows: once aborted, the read stops. */
  signal?: AbortSignal;
}

/** Elapsed-time budget of one read, plus the caller's deadline and signal. */
export class Deadline {
  private readonly start: number;

  constructor(
    readonly budgetMs: number,
    private readonly now: () => number = performance.now.bind(performance),
    private readonly caller: Pick<ReadLimits, 'deadline' | 'signal'> = {},
  ) {
    this.start = now();
  }

  /** Throws StoreTimeoutError when the budget is spent, the caller's deadline passed, or its signal fired. */
  check(what: string, rowsScanned = 0): void {
    const elapsed = this.now() - this.start;
    if (elapsed > this.budgetMs) throw new StoreTimeoutError(what, elapsed, this.budgetMs, rowsScanned);
    const { deadline, signal } = this.caller;
    if (signal?.aborted) throw new StoreTimeoutError(what, elapsed, this.budgetMs, rowsScanned, 'aborted');
    if (deadline !== undefined && Date.now() > deadline) throw new StoreTimeoutError(what, elapsed, this.budgetMs, rowsScanned, 'deadline');
  }
}
