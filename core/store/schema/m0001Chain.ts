/**
 * Migration 1: the chain tables. Bodies and receipts live in segment files; these rows point at them.
 * Table reference (one line each) is in docs/store.md.
 */
import type { Migration } from './migration.ts';

/** Chain index, lookups, log index, head markers and the segment commit pointers. */
export const m0001Chain: Migration = {
  version: 1,
  name: 'chain',
  up(db) {
    db.exec(`
      -- Identity of the file: a chain store, not any SQLite database.
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO meta (key, value) VALUES ('kind', 'xone-chain-store');
      -- Committed size of each segment file and the frame offset of its last record (reconcile cuts past it).
      CREATE TABLE segments (id INTEGER PRIMARY KEY, committed_size INTEGER NOT NULL, last_offset INTEGER NOT NULL);
      -- Every stored block by hash: header RLP inline, body and receipts as two consecutive records in segment seg.
      CREATE TABLE blocks (
        hash BLOB PRIMARY KEY, number INTEGER NOT NULL, parent_hash BLOB NOT NULL, header BLOB NOT NULL,
        seg INTEGER NOT NULL, body_off INTEGER NOT NULL, body_len INTEGER NOT NULL, rcpt_len INTEGER NOT NULL
      ) WITHOUT ROWID;
      -- The canonical chain: number -> hash.
      CREATE TABLE canonical (number INTEGER PRIMARY KEY, hash BLOB NOT NULL);
      -- Transaction hash -> canonical block number and index.
      CREATE TABLE tx_lookup (hash BLOB PRIMARY KEY, number INTEGER NOT NULL, tx_index INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX tx_lookup_number ON tx_lookup (number);
      -- Log index for eth_getLogs: position, emitter and topics of each canonical log (data stays in receipts).
      CREATE TABLE logs (
        number INTEGER NOT NULL, log_index INTEGER NOT NULL, tx_index INTEGER NOT NULL, address BLOB NOT NULL,
        topic0 BLOB, topic1 BLOB, topic2 BLOB, topic3 BLOB, PRIMARY KEY (number, log_index)
      ) WITHOUT ROWID;
      CREATE INDEX logs_address ON logs (address, number);
      CREATE INDEX logs_topic0 ON logs (topic0, number) WHERE topic0 IS NOT NULL;
      -- Head markers: head, safe, finalized.
      CREATE TABLE heads (name TEXT PRIMARY KEY, number INTEGER NOT NULL, hash BLOB NOT NULL) WITHOUT ROWID;
    `);
  },
};
