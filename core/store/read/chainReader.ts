/**
 * Reads of the chain store: headers, bodies, receipts, transaction lookups, head markers and the log index. The same
 * class serves the writer's own connection and the read-only connections of other threads; every method takes an
 * optional deadline in milliseconds (default from the options) and throws StoreTimeoutError past it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SegmentReader } from '../segment/segmentReader.ts';
import { FRAME_HEADER_BYTES } from '../segment/frame.ts';
import type { HeadMarker, HeadName, LogFilter, LogHit, StoredHeader, TxLocation } from '../types.ts';
import { Deadline } from './deadline.ts';
import { getLogs, prepareLogStatements, type LogStatements } from './getLogs.ts';

/** Row of the blocks table. */
export interface BlockRow {
  hash: Uint8Array;
  number: number;
  parent_hash: Uint8Array;
  header: Uint8Array;
  seg: number;
  body_off: number;
  body_len: number;
  rcpt_len: number;
}

type Stmt = BetterSqlite3.Statement;

/** Read access to one connection (owning or read-only). */
export class ChainReader {
  protected readonly stmts: Record<'blockByHash' | 'canonicalHash' | 'tx' | 'head', Stmt>;
  private readonly logStmts: LogStatements;

  constructor(
    readonly db: BetterSqlite3.Database,
    protected readonly segments: SegmentReader,
    protected readonly defaultDeadlineMs: number,
  ) {
    this.stmts = {
      blockByHash: db.prepare('SELECT * FROM blocks WHERE hash = ?'),
      canonicalHash: db.prepare('SELECT hash FROM canonical WHERE number = ?').pluck(),
      tx: db.prepare('SELECT t.number, t.tx_index, c.hash FROM tx_lookup t JOIN canonical c ON c.number = t.number WHERE t.hash = ?'),
      head: db.prepare('SELECT number, hash FROM heads WHERE name = ?'),
    };
    this.logStmts = prepareLogStatements(db);
  }

  /** A deadline for one read: `ms` or the default. */
  protected deadline(ms?: number): Deadline {
    return new Deadline(ms ?? this.defaultDeadlineMs);
  }

  /** Canonical hash at `number`, or undefined. */
  getCanonicalHash(number: number, deadlineMs?: number): Uint8Array | undefined {
    const d = this.deadline(deadlineMs);
    const hash = this.stmts.canonicalHash.get(number) as Uint8Array | undefined;
    d.check('getCanonicalHash');
    return hash;
  }

  /** A head marker, or undefined before the first block. */
  getHead(name: HeadName = 'head', deadlineMs?: number): HeadMarker | undefined {
    const d = this.deadline(deadlineMs);
    const row = this.stmts.head.get(name) as HeadMarker | undefined;
    d.check('getHead');
    return row ? { number: row.number, hash: row.hash } : undefined;
  }

  /** Header of a stored block (canonical or not) by hash. */
  getHeaderByHash(hash: Uint8Array, deadlineMs?: number): StoredHeader | undefined {
    const d = this.deadline(deadlineMs);
    const row = this.blockRow(hash);
    d.check('getHeaderByHash');
    return row ? toHeader(row) : undefined;
  }

  /** Header of the canonical block at `number`. */
  getHeaderByNumber(number: number, deadlineMs?: number): StoredHeader | undefined {
    const d = this.deadline(deadlineMs);
    const hash = this.stmts.canonicalHash.get(number) as Uint8Array | undefined;
    const row = hash ? this.blockRow(hash) : undefined;
    d.check('getHeaderByNumber');
    return row ? toHeader(row) : undefined;
  }

  /** Raw body RLP of a stored block by hash (CRC-checked). */
  getBody(hash: Uint8Array, deadlineMs?: number): Uint8Array | undefined {
    const d = this.deadline(deadlineMs);
    const row = this.blockRow(hash);
    const body = row ? this.segments.read(row.seg, row.body_off, row.body_len) : undefined;
    d.check('getBody');
    return body;
  }

  /** Raw receipts RLP of a stored block by hash (CRC-checked). */
  getReceipts(hash: Uint8Array, deadlineMs?: number): Uint8Array | undefined {
    const d = this.deadline(deadlineMs);
    const row = this.blockRow(hash);
    const rcpt = row ? this.segments.read(row.seg, receiptsOffset(row), row.rcpt_len) : undefined;
    d.check('getReceipts');
    return rcpt;
  }

  /** Where a transaction sits on the canonical chain, or undefined. */
  getTxLocation(txHash: Uint8Array, deadlineMs?: number): TxLocation | undefined {
    const d = this.deadline(deadlineMs);
    const row = this.stmts.tx.get(txHash) as { number: number; tx_index: number; hash: Uint8Array } | undefined;
    d.check('getTxLocation');
    return row ? { blockNumber: row.number, blockHash: row.hash, txIndex: row.tx_index } : undefined;
  }

  /** eth_getLogs over the canonical log index; scans check the deadline between rows. */
  getLogs(filter: LogFilter, deadlineMs?: number): LogHit[] {
    return getLogs(this.logStmts, filter, this.deadline(deadlineMs));
  }

  /** The blocks table row of `hash` (for the store and `db check`). */
  blockRow(hash: Uint8Array): BlockRow | undefined {
    return this.stmts.blockByHash.get(hash) as BlockRow | undefined;
  }
}

/** Frame offset of the receipts record: it follows the body record. */
export function receiptsOffset(row: Pick<BlockRow, 'body_off' | 'body_len'>): number {
  return row.body_off + FRAME_HEADER_BYTES + row.body_len;
}

function toHeader(row: BlockRow): StoredHeader {
  return { number: row.number, hash: row.hash, parentHash: row.parent_hash, headerRlp: row.header };
}
