import type { GatewayMetrics } from '../metrics/types.ts';
import type { BlockId, HeadState, SharedHead } from './head.ts';

/** What the tracker needs from the outside. */
export interface HeadTrackerDeps {
  shared: SharedHead;
  metrics: GatewayMetrics;
  /** Fetches the canonical block at a height (used to walk back through a reorg). */
  fetchBlock(n: number): Promise<BlockId | undefined>;
  /** Called with every block hash that left the canonical chain, so dependent cache entries go. */
  onReplaced(hash: string): void;
  maxReorgDepth: number;
}

/**
 * Keeps the monotonic shared head and a height → hash map of the unfinalized chain. Each new head is linked to its
 * parent: if the stored hash at the parent's height differs, that block was replaced, so the tracker fetches the
 * canonical block there, evicts the old hash, and walks back until the chain links up (at most maxReorgDepth).
 */
export class HeadTracker {
  private head: HeadState | undefined;
  private readonly hashes = new Map<number, string>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HeadTrackerDeps) {}

  /** The served head, or undefined before the first update. */
  get state(): HeadState | undefined {
    return this.head;
  }

  /** The canonical hash the gateway knows at `n` (unfinalized heights only). */
  hashAt(n: number): string | undefined {
    return this.hashes.get(n);
  }

  /** Feeds a new head (from polling or newHeads) with the safe/finalized numbers seen with it; updates are serialised. */
  update(block: BlockId, safe: number, finalized: number): Promise<void> {
    this.chain = this.chain.then(() => this.apply(block, safe, finalized)).catch(() => undefined);
    return this.chain;
  }

  private async apply(block: BlockId, safe: number, finalized: number): Promise<void> {
    const known = this.hashes.get(block.number);
    const top = Math.max(-1, ...this.hashes.keys());
    // A block we already hold, below our top: a lagging upstream's view, nothing to learn.
    const stale = known === block.hash && block.number < top;
    if (!stale) {
      this.setHash(block.number, block.hash);
      // The block at this height was replaced: heights above it were built on the old one.
      if (known !== undefined && known !== block.hash) for (const n of [...this.hashes.keys()]) if (n > block.number) this.drop(n);
      let child = block;
      for (let depth = 0; depth < this.deps.maxReorgDepth; depth++) {
        const stored = this.hashes.get(child.number - 1);
        if (stored === undefined || stored === child.parentHash) break;
        const parent = await this.deps.fetchBlock(child.number - 1);
        if (!parent || parent.hash !== child.parentHash) {
          // The upstream moved again under us: forget this height rather than guess.
          this.drop(child.number - 1);
          break;
        }
        this.setHash(parent.number, parent.hash);
        child = parent;
      }
      await this.backfill(block, finalized);
    }
    this.head = await this.deps.shared.advance({ latest: block.number, safe, finalized });
    this.deps.metrics.head('latest', this.head.latest);
    this.deps.metrics.head('safe', this.head.safe);
    this.deps.metrics.head('finalized', this.head.finalized);
    for (const n of [...this.hashes.keys()]) if (n < this.head.finalized) this.hashes.delete(n);
  }

  /**
   * Makes every unfinalized height below the head known (else calls there are not cacheable): the parent's hash comes
   * free with the head; deeper gaps (after a start or a missed poll) are fetched, at most maxReorgDepth of them.
   */
  private async backfill(head: BlockId, finalized: number): Promise<void> {
    if (head.number > 0 && !this.hashes.has(head.number - 1)) this.hashes.set(head.number - 1, head.parentHash);
    const lowest = Math.max(finalized + 1, head.number - this.deps.maxReorgDepth);
    for (let n = head.number - 2; n >= lowest; n--) {
      if (this.hashes.has(n)) continue;
      const b = await this.deps.fetchBlock(n);
      if (!b) break;
      const child = this.hashes.get(n + 1);
      // Only a block that links to the child we hold is recorded; anything else means the chain moved: stop.
      const childBlock = child === undefined ? undefined : await this.deps.fetchBlock(n + 1);
      if (!childBlock || childBlock.hash !== child || childBlock.parentHash !== b.hash) break;
      this.hashes.set(n, b.hash);
    }
  }

  private setHash(n: number, hash: string): void {
    const old = this.hashes.get(n);
    if (old !== undefined && old !== hash) this.deps.onReplaced(old);
    this.hashes.set(n, hash);
  }

  private drop(n: number): void {
    const old = this.hashes.get(n);
    if (old !== undefined) this.deps.onReplaced(old);
    this.hashes.delete(n);
  }
}
