/**
 * A read deadline. Point reads check it once; scans check it between rows, so a long eth_getLogs cannot hold a
 * read snapshot (and with it WAL checkpoints) past its budget.
 */
import { StoreTimeoutError } from '../errors.ts';

/** Elapsed-time budget of one read. */
export class Deadline {
  private readonly start: number;

  constructor(
    readonly budgetMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.start = now();
  }

  /** Throws StoreTimeoutError when the budget is spent. */
  check(what: string, rowsScanned = 0): void {
    const elapsed = this.now() - this.start;
    if (elapsed > this.budgetMs) throw new StoreTimeoutError(what, elapsed, this.budgetMs, rowsScanned);
  }
}
