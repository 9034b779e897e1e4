/**
 * Migration 2: execution state (issue #4, docs/state.md). Current accounts, storage and code; the Merkle-Patricia
 * nodes of every committed state root; and per-block change sets (the value each key had before the block) for
 * historical reads and unwinding. Written by core/state/store/, appended to the list by core/state/store/migrations.ts.
 */
import type { Migration } from './migration.ts';

/** State tables. */
export const m0002State: Migration = {
  version: 2,
  name: 'state',
  up(db) {
    db.exec(`
      -- Current account by 20-byte address: RLP [nonce, balance, storageRoot, codeHash] as in the state trie.
      CREATE TABLE state_accounts (address BLOB PRIMARY KEY, account BLOB NOT NULL) WITHOUT ROWID;
      -- Current non-zero storage: (address, 32-byte slot) -> minimal big-endian value.
      CREATE TABLE state_storage (address BLOB NOT NULL, slot BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (address, slot)) WITHOUT ROWID;
      -- Contract code by keccak256 hash (never deleted: several accounts and old states may share it).
      CREATE TABLE state_code (hash BLOB PRIMARY KEY, code BLOB NOT NULL) WITHOUT ROWID;
      -- Trie nodes (account and storage tries) by keccak256 of their RLP; every committed root can be reopened.
      CREATE TABLE trie_nodes (hash BLOB PRIMARY KEY, node BLOB NOT NULL) WITHOUT ROWID;
      -- Account change set: the account before block \`number\` wrote it (NULL = did not exist).
      CREATE TABLE state_account_changes (address BLOB NOT NULL, number INTEGER NOT NULL, prev BLOB, PRIMARY KEY (address, number)) WITHOUT ROWID;
      CREATE INDEX state_account_changes_number ON state_account_changes (number);
      -- Storage change set: the slot's value before block \`number\` (empty = zero).
      CREATE TABLE state_storage_changes (
        address BLOB NOT NULL, slot BLOB NOT NULL, number INTEGER NOT NULL, prev BLOB NOT NULL, PRIMARY KEY (address, slot, number)
      ) WITHOUT ROWID;
      CREATE INDEX state_storage_changes_number ON state_storage_changes (number);
      -- State root per block number with the state stored (for historical reads and proofs).
      CREATE TABLE state_roots (number INTEGER PRIMARY KEY, root BLOB NOT NULL);
    `);
  },
};
