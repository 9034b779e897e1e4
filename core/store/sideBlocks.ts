/**
 * Side-chain bookkeeping inside the store's transaction (docs/store.md, "Side chains"): which stored blocks are off
 * the canonical chain, and the bounds that keep them few. A side block is pruned (its block row, senders and
 * side_blocks row deleted) when it sits more than `maxDepth` blocks below the head, when more than `maxBlocks` side
 * blocks are stored (lowest first), or when its parent was pruned. Its segment records stay as dead bytes: segment
 * files are append-only.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** The side-chain bounds (store options `maxSideBlocks`, `maxSideDepth`). */
export interface SideBounds {
  maxBlocks: number;
  maxDepth: number;
}

/** Prepared statements over `side_blocks`; every method runs inside the store's open transaction. */
export class SideBlocks {
  private readonly s;
  private count: number;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.s = {
      insert: db.prepare<[number, Uint8Array]>('INSERT OR IGNORE INTO side_blocks (number, hash) VALUES (?, ?)'),
      remove: db.prepare<[number, Uint8Array]>('DELETE FROM side_blocks WHERE number = ? AND hash = ?'),
      fromCanonical: db.prepare<[number]>(
        'INSERT OR IGNORE INTO side_blocks (number, hash) SELECT number, hash FROM canonical WHERE number > ?',
      ),
      count: db.prepare('SELECT count(*) FROM side_blocks').pluck(),
      below: db.prepare<[number], { number: number; hash: Uint8Array }>('SELECT number, hash FROM side_blocks WHERE number < ?'),
      lowest: db.prepare<[number], { number: number; hash: Uint8Array }>('SELECT number, hash FROM side_blocks ORDER BY number LIMIT ?'),
      orphans: db.prepare<[], { number: number; hash: Uint8Array }>(
        'SELECT s.number, s.hash FROM side_blocks s JOIN blocks b ON b.hash = s.hash WHERE NOT EXISTS (SELECT 1 FROM blocks p WHERE p.hash = b.parent_hash)',
      ),
      deleteBlock: db.prepare<[Uint8Array]>('DELETE FROM blocks WHERE hash = ?'),
      deleteSenders: db.prepare<[Uint8Array]>('DELETE FROM block_senders WHERE block_hash = ?'),
      tips: db.prepare<[], { number: number; hash: Uint8Array }>(
        'SELECT s.number, s.hash FROM side_blocks s WHERE NOT EXISTS (SELECT 1 FROM blocks c WHERE c.parent_hash = s.hash) ORDER BY s.number DESC',
      ),
    };
    this.count = this.s.count.get() as number;
  }

  /** Side blocks stored (as of the open transaction). */
  get size(): number {
    return this.count;
  }

  /** Re-reads the count (after a rollback). */
  reload(): void {
    this.count = this.s.count.get() as number;
  }

  add(number: number, hash: Uint8Array): void {
    this.count += this.s.insert.run(number, hash).changes;
  }

  /** The block joined the canonical chain. */
  remove(number: number, hash: Uint8Array): void {
    if (this.count === 0) return;
    this.count -= this.s.remove.run(number, hash).changes;
  }

  /** The canonical blocks above `number` are about to leave the canonical chain: they become side blocks. */
  addCanonicalAbove(number: number): void {
    this.count += this.s.fromCanonical.run(number).changes;
  }

  /** Side blocks with no stored child, highest first (fork-choice candidates). */
  tips(): { number: number; hash: Uint8Array }[] {
    return this.s.tips.all();
  }

  /** Applies the bounds for a head at `head`; returns how many side blocks were pruned. */
  prune(head: number, bounds: SideBounds): number {
    if (this.count === 0) return 0;
    let pruned = 0;
    for (const row of this.s.below.all(head - bounds.maxDepth)) pruned += this.drop(row);
    if (this.count > bounds.maxBlocks) for (const row of this.s.lowest.all(this.count - bounds.maxBlocks)) pruned += this.drop(row);
    if (pruned > 0) {
      // Children of a pruned block can never be reached: prune them too, generation by generation.
      for (let rows = this.s.orphans.all(); rows.length > 0; rows = this.s.orphans.all()) for (const row of rows) pruned += this.drop(row);
    }
    return pruned;
  }

  private drop(row: { number: number; hash: Uint8Array }): number {
    this.s.deleteBlock.run(row.hash);
    this.s.deleteSenders.run(row.hash);
    const n = this.s.remove.run(row.number, row.hash).changes;
    this.count -= n;
    return n;
  }
}
