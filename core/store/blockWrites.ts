/**
 * The SQL a block commit writes, prepared once per connection: block row, canonical entry, transaction lookups, log
 * index rows, the block's senders, the head marker and the segment commit pointer (a side block writes its block row,
 * senders and segment pointer only). Runs inside the store's open transaction.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { ChunkedInsert } from './sqlite/chunkedInsert.ts';
import type { AppendResult } from './segment/segmentWriter.ts';
import type { BlockRecord, HeadName } from './types.ts';

/** Prepared write statements. */
export class BlockWrites {
  private readonly s;
  /** tx_lookup and logs rows, 64 per statement: a full block has thousands (decision 0019). */
  private readonly txRows: ChunkedInsert;
  private readonly logRows: ChunkedInsert;

  constructor(db: BetterSqlite3.Database) {
    this.txRows = new ChunkedInsert(db, 'INSERT OR REPLACE INTO tx_lookup (hash, number, tx_index)', 3);
    this.logRows = new ChunkedInsert(db, 'INSERT INTO logs (number, log_index, tx_index, address, topic0, topic1, topic2, topic3)', 8);
    this.s = {
      block: db.prepare(
        'INSERT OR REPLACE INTO blocks (hash, number, parent_hash, header, seg, body_off, body_len, rcpt_len, td) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      td: db.prepare<[Uint8Array | null, Uint8Array]>('UPDATE blocks SET td = coalesce(?, td) WHERE hash = ?'),
      canonical: db.prepare('INSERT INTO canonical (number, hash) VALUES (?, ?)'),
      head: db.prepare('INSERT OR REPLACE INTO heads (name, number, hash) VALUES (?, ?, ?)'),
      segment: db.prepare('INSERT OR REPLACE INTO segments (id, committed_size, last_offset) VALUES (?, ?, ?)'),
      unwindCanonical: db.prepare('DELETE FROM canonical WHERE number > ?'),
      unwindTx: db.prepare('DELETE FROM tx_lookup WHERE number > ?'),
      unwindLogs: db.prepare('DELETE FROM logs WHERE number > ?'),
      senders: db.prepare('INSERT OR REPLACE INTO block_senders (block_hash, senders) VALUES (?, ?)'),
    };
  }

  /**
   * Writes every row of `block` as the new canonical head. `at` is where its body and receipts records were appended;
   * undefined when the block row already points at records of the same bytes (a side block joining the chain).
   */
  insertBlock(block: BlockRecord, at: AppendResult | undefined): void {
    const s = this.s;
    if (at) this.insertBlockRow(block, at);
    else s.td.run(tdBytes(block.td), block.hash);
    s.canonical.run(block.number, block.hash);
    const txRows = this.txRows;
    block.txHashes.forEach((h, i) => txRows.add(h, block.number, i));
    txRows.flush();
    const logRows = this.logRows;
    for (const log of block.logs) {
      const t = log.topics;
      logRows.add(block.number, log.logIndex, log.txIndex, log.address, t[0] ?? null, t[1] ?? null, t[2] ?? null, t[3] ?? null);
    }
    logRows.flush();
    s.head.run('head', block.number, block.hash);
  }

  /** The block row of `block` (canonical or side) and the segment pointer of its records. */
  insertBlockRow(block: BlockRecord, at: AppendResult): void {
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
      tdBytes(block.td),
    );
    if (block.senders !== undefined && block.senders.length > 0) s.senders.run(block.hash, Buffer.concat(block.senders));
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

/** A total difficulty as minimal big-endian bytes (null when not given). */
export function tdBytes(td: bigint | undefined): Uint8Array | null {
  if (td === undefined) return null;
  let hex = td.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Buffer.from(hex, 'hex');
}
