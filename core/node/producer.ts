/**
 * The producer's clock: seals a block every `period` seconds from the pool (interval mining), on every new
 * transaction (automine, dev only), or on demand (evm_mine). All chain work goes through one queue so two blocks are
 * never built at once, and a block is announced only after it is durable.
 */
import type { Logger } from '../log/types.ts';

export type MiningMode = 'interval' | 'automine' | 'manual';

export interface ProducerDeps {
  /** Seals one block (timestamp override for the first evm_mine block); resolves when it is durable and announced. */
  produce(timestamp?: bigint): Promise<void>;
  logger: Logger;
}

export class Producer {
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private automineScheduled = false;
  private closed = false;

  constructor(
    private readonly periodMs: number,
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
    this.timer = setTimeout(() => {
      void this.enqueue(() => this.deps.produce()).then(() => this.schedule());
    }, this.periodMs);
  }
}
