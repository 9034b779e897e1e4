/**
 * The SQL a block commit writes, prepared once per connection: block row, canonical entry, transaction lookups, log
 * index rows, the head marker and the segment commit pointer. Runs inside the store's open transaction.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { AppendResult } from './segment/segmentWriter.ts';
import type { BlockRecord, HeadName } from './types.ts';

/** Prepared write statements. */
export class BlockWrites {
  private readonly s;

  constructor(db: BetterSqlite3.Database) {
    this.s = {
      block: db.prepare(
        'INSERT OR REPLACE INTO blocks (hash, number, parent_hash, header, seg, body_off, body_len, rcpt_len) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      canonical: db.prepare('INSERT INTO canonical (number, hash) VALUES (?, ?)'),
      tx: db.prepare('INSERT OR REPLACE INTO tx_lookup (hash, number, tx_index) VALUES (?, ?, ?)'),
      log: db.prepare(
        'INSERT INTO logs (number, log_index, tx_index, address, topic0, topic1, topic2, topic3) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      head: db.prepare('INSERT OR REPLACE INTO heads (name, number, hash) VALUES (?, ?, ?)'),
      segment: db.prepare('INSERT OR REPLACE INTO segments (id, committed_size, last_offset) VALUES (?, ?, ?)'),
      unwindCanonical: db.prepare('DELETE FROM canonical WHERE number > ?'),
      unwindTx: db.prepare('DELETE FROM tx_lookup WHERE number > ?'),
      unwindLogs: db.prepare('DELETE FROM logs WHERE number > ?'),
    };
  }

  /** Writes every row of `block`, whose body and receipts records were appended as `at`. */
  insertBlock(block: BlockRecord, at: AppendResult): void {
    const s = this.s;
    s.block.run(
      block.hash,
      block.number,
      block.parentHash,
      block.headerRlp,
      at.segment,
      at.offsets[0],
      block.bodyRlp.length,
      block.receiptsRlp.length,
    );
    s.canonical.run(block.number, block.hash);
    block.txHashes.forEach((h, i) => s.tx.run(h, block.number, i));
    for (const log of block.logs) {
      const t = log.topics;
      s.log.run(block.number, log.logIndex, log.txIndex, log.address, t[0] ?? null, t[1] ?? null, t[2] ?? null, t[3] ?? null);
    }
    s.head.run('head', block.number, block.hash);
    s.segment.run(at.segment, at.endSize, at.offsets[at.offsets.length - 1]);
  }

  /** Sets a head marker. */
  setHead(name: HeadName, number: number, hash: Uint8Array): void {
    this.s.head.run(name, number, hash);
  }

  /** Removes canonical entries, lookups and logs above `number` (block rows stay, addressable by hash). */
  unwindAbove(number: number): void {
    this.s.unwindCanonical.run(number);
    this.s.unwindTx.run(number);
    this.s.unwindLogs.run(number);
  }
}
