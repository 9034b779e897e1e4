/**
 * Reads of the chain store: headers, bodies, receipts, senders, transaction lookups, head markers, canonical ranges
 * and the log index. The same class serves the writer's own connection and the read-only connections of other
 * threads; every method takes an optional deadline in milliseconds (default from the options) and throws
 * StoreTimeoutError past it. The connection itself is private: the rest of the node reads through these methods.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { bindConnection } from '../connection.ts';
import type { SegmentReader } from '../segment/segmentReader.ts';
import { FRAME_HEADER_BYTES } from '../segment/frame.ts';
import type { HeadMarker, HeadName, LogFilter, LogHit, StoredHeader, TxLocation } from '../types.ts';
import { Deadline, type ReadLimits } from './deadline.ts';
import { getLogs, prepareLogStatements, type LogScanFaults, type LogStatements } from './getLogs.ts';

/** Injected faults of a reader (test seams; plain data, so they cross to worker threads). */
export interface ReaderFaults {
  /** Every row a log scan reads costs this many more milliseconds (a slow disk). */
  logRowDelayMs?: number;
}

/** Length of one sender address in the packed `block_senders` value. */
const ADDRESS_BYTES = 20;

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
  /** Total difficulty, big-endian (NULL for blocks stored before migration 4). */
  td: Uint8Array | null;
}

type Stmt = BetterSqlite3.Statement;

/** Read access to one connection (owning or read-only). */
export class ChainReader {
  protected stmts!: Record<'blockByHash' | 'canonicalHash' | 'tx' | 'head' | 'senders' | 'canonicalRange', Stmt>;
  /** Statements over tables of later migrations, prepared on first use (a reader may open an older datadir). */
  private readonly later = new Map<string, Stmt>();
  private logStmts!: LogStatements;
  private readonly logFaults: LogScanFaults;

  constructor(
    protected db: BetterSqlite3.Database,
    protected readonly segments: SegmentReader,
    protected readonly defaultDeadlineMs: number,
    faults: ReaderFaults = {},
  ) {
    this.useConnection(db);
    this.logFaults = faults.logRowDelayMs ? { rowDelayMs: faults.logRowDelayMs } : {};
  }

  /** Reads through `db` from now on (a read-only handle moving its pinned snapshot to its other connection). */
  protected useConnection(db: BetterSqlite3.Database): void {
    this.db = db;
    bindConnection(this, db);
    this.stmts = {
      blockByHash: db.prepare('SELECT * FROM blocks WHERE hash = ?'),
      canonicalHash: db.prepare('SELECT hash FROM canonical WHERE number = ?').pluck(),
      tx: db.prepare('SELECT t.number, t.tx_index, c.hash FROM tx_lookup t JOIN canonical c ON c.number = t.number WHERE t.hash = ?'),
      head: db.prepare('SELECT number, hash FROM heads WHERE name = ?'),
      senders: db.prepare('SELECT senders FROM block_senders WHERE block_hash = ?').pluck(),
      canonicalRange: db.prepare(
        'SELECT c.number AS number, c.hash AS hash, b.parent_hash AS parent_hash, b.header AS header FROM canonical c JOIN blocks b ON b.hash = c.hash WHERE c.number >= ? AND c.number <= ? ORDER BY c.number',
      ),
    };
    this.logStmts = prepareLogStatements(db);
    this.later.clear();
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

  /**
   * The recovered senders of a stored block's transactions, in block order, as the importer or producer recorded them;
   * undefined when none were recorded (callers recover them from the signatures).
   */
  getSenders(hash: Uint8Array, deadlineMs?: number): Uint8Array[] | undefined {
    const d = this.deadline(deadlineMs);
    const packed = this.stmts.senders.get(hash) as Uint8Array | undefined;
    d.check('getSenders');
    if (packed === undefined || packed.length % ADDRESS_BYTES !== 0) return undefined;
    const out: Uint8Array[] = [];
    for (let i = 0; i < packed.length; i += ADDRESS_BYTES) out.push(packed.subarray(i, i + ADDRESS_BYTES));
    return out;
  }

  /**
   * Headers of the canonical blocks `first..last` in number order, read lazily (one row at a time); a gap in the
   * canonical index ends the sequence early, so callers compare the numbers they got. No deadline: the caller
   * bounds the range.
   */
  *canonicalHeaders(first: number, last: number): IterableIterator<StoredHeader> {
    const rows = this.stmts.canonicalRange.iterate(first, last) as IterableIterator<{
      number: number;
      hash: Uint8Array;
      parent_hash: Uint8Array;
      header: Uint8Array;
    }>;
    for (const row of rows) yield { number: row.number, hash: row.hash, parentHash: row.parent_hash, headerRlp: row.header };
  }

  /**
   * eth_getLogs over the canonical log index. The scan checks, between rows, the store's budget (`limits.budgetMs`
   * or the default), the caller's `deadline` and its `signal` (StoreTimeoutError, STORE_READ_TIMEOUT), and stops
   * with StoreResultLimitError (STORE_RESULT_LIMIT) past `filter.limit` matches.
   */
  getLogs(filter: LogFilter, limits: ReadLimits = {}): LogHit[] {
    const deadline = new Deadline(limits.budgetMs ?? this.defaultDeadlineMs, undefined, limits);
    return getLogs(this.logStmts, filter, deadline, this.logFaults);
  }

  /**
   * Runs `read` inside one read transaction: every read in it sees the same committed snapshot, whatever the writer
   * commits meanwhile (WAL). Nested calls share the outer snapshot. `read` must not await: the transaction ends
   * when it returns.
   */
  snapshot<T>(read: () => T): T {
    if (this.db.inTransaction) return read();
    this.db.exec('BEGIN');
    try {
      return read();
    } finally {
      this.db.exec('COMMIT');
    }
  }

  /** Total difficulty of a stored block, when it was recorded with the block (every block since migration 4). */
  getTotalDifficulty(hash: Uint8Array): bigint | undefined {
    const td = this.blockRow(hash)?.td;
    return td == null ? undefined : td.length === 0 ? 0n : BigInt('0x' + Buffer.from(td).toString('hex'));
  }

  /** Number of stored side-chain blocks (off the canonical chain). */
  getSideBlockCount(): number {
    return this.prepared('SELECT count(*) FROM side_blocks').get() as number;
  }

  /** Hashes of the side-chain blocks stored at height `number`. */
  getSideBlockHashes(number: number): Uint8Array[] {
    return (this.prepared('SELECT hash FROM side_blocks WHERE number = ?').all(number) as Uint8Array[]).map((h) => new Uint8Array(h));
  }

  private prepared(sql: string): Stmt {
    let stmt = this.later.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql).pluck();
      this.later.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * `snapshot` for a read that awaits: one read transaction of this connection, so everything `read` reads across
   * its awaits comes from one WAL snapshot (the RPC execution pool runs each job this way). Only for a connection no
   * one else uses meanwhile (a pool worker's own); nested calls share the outer snapshot.
   */
  async readSnapshot<T>(read: () => T | Promise<T>): Promise<T> {
    if (this.db.inTransaction) return read();
    this.db.exec('BEGIN');
    try {
      return await read();
    } finally {
      this.db.exec('COMMIT');
    }
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
