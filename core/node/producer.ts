/**
 * The producer's clock: seals a block in its Clique slot from the pool (interval mining), on every new transaction
 * (automine, dev only), or on demand (evm_mine). Interval mining asks `plan()` when the next block is ours to seal on
 * the current head (in turn: at the slot, `period` after the parent; out of turn: after a random extra delay, as geth
 * does, so the in-turn block usually wins), and plans again whenever the head moves (`onNewHead`: a peer's block
 * arrived) or a seal was refused (the head moved meanwhile, or we signed too recently). All chain work goes through
 * one queue so two blocks are never built at once, and a block is announced only after it is durable.
 */
import { XoneError } from '../errors.ts';
import type { Logger } from '../log/types.ts';

/** First wait before interval mining tries again after a failed seal; doubled per failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
/** Consecutive failures after which production counts as stuck (`stuck()`): the tx pool stops admitting. */
const STUCK_AFTER = 2;

export type MiningMode = 'interval' | 'automine' | 'manual';

/** The next seal interval mining should attempt, or undefined to wait for another head. */
export interface SealAttempt {
  delayMs: number;
  /** The head the block builds on (the chain thread refuses if the head moved meanwhile). */
  parentHash: Uint8Array;
}

export interface ProducerDeps {
  /** Seals one block (timestamp override for the first evm_mine block); resolves when it is durable and announced. */
  produce(timestamp?: bigint, parentHash?: Uint8Array): Promise<void>;
  /** Interval mining's next attempt on the current head (undefined: not ours to seal; wait for the next head). */
  plan(): Promise<SealAttempt | undefined>;
  logger: Logger;
}

export class Producer {
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private automineScheduled = false;
  /** The latest automine block scheduled (see `automineBlock`). */
  private automineSeal: Promise<void> | undefined;
  private closed = false;
  /** Bumped on every (re)plan: a plan that resolves after a newer one started is dropped. */
  private generation = 0;
  /** The failure production is in (consecutive failed seals), until one succeeds. */
  private failing: { message: string; count: number; since: number } | undefined;

  constructor(
    private mode: MiningMode,
    private readonly deps: ProducerDeps,
  ) {}

  start(): void {
    this.schedule();
  }

  get miningMode(): MiningMode {
    return this.mode;
  }

  setMode(mode: MiningMode): void {
    this.mode = mode;
    this.schedule();
  }

  /** Mines `count` blocks now (evm_mine), after whatever is queued. */
  mine(count: number, timestamp?: bigint): Promise<void> {
    let first = true;
    for (let i = 0; i < count; i++) {
      const ts = first ? timestamp : undefined;
      first = false;
      this.enqueue(() => this.deps.produce(ts));
    }
    return this.queue;
  }

  /** The head moved without us (a peer's block, a reorg): plan the next seal on the new head. */
  onNewHead(): void {
    if (this.mode === 'interval') this.schedule();
  }

  /** A transaction entered the pool: in automine mode, seal a block for it (one block per burst). */
  onPendingTransaction(): void {
    if (this.mode !== 'automine' || this.automineScheduled) return;
    this.automineScheduled = true;
    this.automineSeal = new Promise((resolve) =>
      setImmediate(() => {
        this.automineScheduled = false;
        void this.enqueue(() => this.deps.produce()).then(resolve);
      }),
    );
  }

  /**
   * In automine mode, the block sealed for the transactions that just became pending: settles once it is adopted
   * (its receipts readable) or its seal failed, never rejects. Undefined in the other modes.
   */
  automineBlock(): Promise<void> | undefined {
    return this.mode === 'automine' ? this.automineSeal : undefined;
  }

  /**
   * Why production is stuck (the last failure's message, after STUCK_AFTER failed seals in a row), or undefined. The
   * tx pool refuses new transactions meanwhile (a disk-full node would otherwise take them and never mine them).
   */
  stuck(): string | undefined {
    return this.failing && this.failing.count >= STUCK_AFTER ? this.failing.message : undefined;
  }

  /**
   * Runs chain work strictly one after another; a failure does not stop later work. One error line per distinct
   * failure (a full disk fails every retry the same way), and one line when production recovers.
   */
  enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work).then(
      () => this.succeeded(),
      (err: unknown) => this.failed(err),
    );
    this.queue = next;
    return next;
  }

  private failed(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (this.failing?.message === message) {
      this.failing.count++;
      return;
    }
    this.failing = { message, count: (this.failing?.count ?? 0) + 1, since: Date.now() };
    this.deps.logger.error('block production failed', {
      err: message,
      // A store error says what failed; the stack is for the unexpected.
      ...(err instanceof XoneError ? { code: err.code } : { stack: err instanceof Error ? err.stack : undefined }),
      retry: 'with backoff until a seal succeeds; new transactions are refused meanwhile',
    });
  }

  private succeeded(): void {
    if (!this.failing) return;
    this.deps.logger.info('block production recovered', { failures: this.failing.count, stuckMs: Date.now() - this.failing.since });
    this.failing = undefined;
  }

  /** How long interval mining waits before trying again after failures (0 when the last seal worked). */
  private retryDelayMs(): number {
    if (!this.failing) return 0;
    return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.failing.count - 1, 16));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.queue;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.mode !== 'interval') return;
    const generation = ++this.generation;
    void this.deps.plan().then(
      (attempt) => {
        if (generation !== this.generation || this.closed || this.mode !== 'interval' || !attempt) return;
        this.timer = setTimeout(
          () => {
            this.timer = undefined;
            if (generation !== this.generation) return;
            void this.enqueue(() => this.deps.produce(undefined, attempt.parentHash)).then(() => {
              if (generation === this.generation) this.schedule();
            });
          },
          // After a failure the slot has passed: without a wait the retry would spin (a full disk fails at once).
          Math.max(attempt.delayMs, this.retryDelayMs()),
        );
      },
      (err: unknown) => this.deps.logger.warn('seal planning failed', { err: err instanceof Error ? err.message : String(err) }),
    );
  }
}
