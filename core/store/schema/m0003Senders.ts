/** Migration 3: the recovered senders of each block, so serving a block's transactions never recovers them again. */
import type { Migration } from './migration.ts';

export const m0003Senders: Migration = {
  version: 3,
  name: 'block-senders',
  up(db) {
    // One row per block: the 20-byte sender of each transaction, concatenated in block order.
    db.exec('CREATE TABLE block_senders (block_hash BLOB PRIMARY KEY, senders BLOB NOT NULL) WITHOUT ROWID');
  },
};
