/**
 * Multi-row INSERT: rows are buffered and written `chunk` at a time through one prepared
 * `INSERT … VALUES (?, ?), (?, ?), …` statement, the remainder through the one-row statement. One N-API call and one
 * VDBE run per chunk instead of per row costs about 30% less CPU per row (measured on the trie node table, 20,000
 * rows); the block commit writes thousands of rows per table. Rows keep their order, so OR REPLACE / OR IGNORE
 * resolve duplicates exactly as one-by-one inserts would.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** A value SQLite binds. */
export type SqlValue = Uint8Array | number | bigint | string | null;

/** Buffers rows of one INSERT; `flush()` writes them. Call both inside the caller's open transaction. */
export class ChunkedInsert {
  private readonly one: BetterSqlite3.Statement<SqlValue[]>;
  private readonly many: BetterSqlite3.Statement<SqlValue[]>;
  private readonly params: SqlValue[] = [];

  /** `head` is the statement up to VALUES, e.g. `INSERT OR IGNORE INTO t (a, b)`; `columns` values per row. */
  constructor(
    db: BetterSqlite3.Database,
    head: string,
    private readonly columns: number,
    private readonly chunk = 64,
  ) {
    const row = `(${Array(columns).fill('?').join(', ')})`;
    this.one = db.prepare<SqlValue[]>(`${head} VALUES ${row}`);
    this.many = db.prepare<SqlValue[]>(`${head} VALUES ${Array(chunk).fill(row).join(', ')}`);
  }

  /** Adds one row (`columns` values). Writes a full chunk as soon as there is one. */
  add(...values: SqlValue[]): void {
    for (const v of values) this.params.push(v);
    if (this.params.length === this.columns * this.chunk) {
      this.many.run(...this.params);
      this.params.length = 0;
    }
  }

  /** Writes the rows still buffered. */
  flush(): void {
    const p = this.params;
    for (let i = 0; i < p.length; i += this.columns) this.one.run(...p.slice(i, i + this.columns));
    p.length = 0;
  }

  /** Drops buffered rows (a rejected block). */
  discard(): void {
    this.params.length = 0;
  }
}
