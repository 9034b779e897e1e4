/**
 * Migration 4: side chains and total difficulty (issue #16, docs/store.md "Side chains"). `side_blocks` lists every
 * stored block that is not on the canonical chain (a valid block on a known parent that lost fork choice, or a block
 * a reorg unwound), so the bounds can prune them by height; `blocks.td` holds each block's total difficulty, written
 * with the block (NULL for blocks stored before this migration: the chain layer derives those once).
 */
import type { Migration } from './migration.ts';

export const m0004SideChains: Migration = {
  version: 4,
  name: 'side-chains',
  up(db) {
    db.exec(`
      -- Stored blocks off the canonical chain, by height (pruning order) and hash.
      CREATE TABLE side_blocks (number INTEGER NOT NULL, hash BLOB NOT NULL, PRIMARY KEY (number, hash)) WITHOUT ROWID;
      -- Total difficulty (sum of difficulties from genesis) as a big-endian integer; NULL = not recorded.
      ALTER TABLE blocks ADD COLUMN td BLOB;
    `);
    // Blocks an earlier unwind (evm_revert, a reorg through the old unwind path) left off the canonical chain.
    db.exec(`
      INSERT INTO side_blocks (number, hash)
      SELECT b.number, b.hash FROM blocks b LEFT JOIN canonical c ON c.number = b.number AND c.hash = b.hash WHERE c.number IS NULL
    `);
  },
};
