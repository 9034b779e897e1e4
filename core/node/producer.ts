/**
 * The producer's clock: seals a block in its Clique slot from the pool (interval mining), on every new transaction
 * (automine, dev only), or on demand (evm_mine). Interval mining asks `plan()` when the next block is ours to seal on
 * the current head (in turn: at the slot, `period` after the parent; out of turn: after a random extra delay, as geth
 * does, so the in-turn block usually wins), and plans again whenever the head moves (`onNewHead`: a peer's block
 * arrived) or a seal was refused (the head moved meanwhile, or we signed too recently). All chain work goes through
 * one queue so two blocks are never built at once, and a block is announced only after it is durable.
 */
import type { Logger } from '../log/types.ts';

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
  private closed = false;
  /** Bumped on every (re)plan: a plan that resolves after a newer one started is dropped. */
  private generation = 0;

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
    setImmediate(() => {
      this.automineScheduled = false;
      void this.enqueue(() => this.deps.produce());
    });
  }

  /** Runs chain work strictly one after another; a failure is logged and does not stop later work. */
  enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work).catch((err: unknown) => {
      this.deps.logger.error('block production failed', {
        err: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    });
    this.queue = next;
    return next;
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
        this.timer = setTimeout(() => {
          this.timer = undefined;
          if (generation !== this.generation) return;
          void this.enqueue(() => this.deps.produce(undefined, attempt.parentHash)).then(() => {
            if (generation === this.generation) this.schedule();
          });
        }, attempt.delayMs);
      },
      (err: unknown) => this.deps.logger.warn('seal planning failed', { err: err instanceof Error ? err.message : String(err) }),
    );
  }
}
