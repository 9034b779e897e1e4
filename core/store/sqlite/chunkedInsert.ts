/**
 * Multi-row INSERT (decision 0019): rows are buffered and written `chunk` at a time through one prepared
 * `INSERT … VALUES (?, ?), (?, ?), …` statement, the remainder through the one-row statement. One N-API call and one
 * VDBE run per chunk instead of per row: the block write's tx lookups and logs, and the state layer's accounts,
 * change sets and trie nodes, are thousands of rows per block. Rows keep their order, so OR REPLACE / OR IGNORE
 * resolve duplicates exactly as one-by-one inserts would, and a plain INSERT that hits a key conflict still throws
 * (the caller's savepoint rolls back). Such statements need a statement journal: the writer keeps it in memory
 * (`temp_store = MEMORY`, openDatabase.ts), without which 64-row statements cost more CPU than one-row ones.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** A value SQLite binds. */
export type SqlValue = Uint8Array | number | bigint | string | null;

/** Buffers rows of one INSERT; `flush()` writes them. Call both inside the caller's open transaction. */
export class ChunkedInsert {
  private readonly one: BetterSqlite3.Statement<SqlValue[]>;
  private readonly many: BetterSqlite3.Statement<SqlValue[]>;
  private readonly params: SqlValue[] = [];

  /** `head` is the statement up to VALUES, e.g. `INSERT OR REPLACE INTO t (a, b)`; `columns` values per row. */
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
    const p = this.params;
    for (const v of values) p.push(v);
    if (p.length === this.columns * this.chunk) {
      // Emptied even when the write throws, so a failed block leaves nothing for the next one.
      try {
        this.many.run(...p);
      } finally {
        p.length = 0;
      }
    }
  }

  /** Drops buffered rows without writing them (a rejected block). */
  discard(): void {
    this.params.length = 0;
  }

  /** Writes the rows still buffered (always leaves the buffer empty). */
  flush(): void {
    const p = this.params;
    try {
      for (let i = 0; i < p.length; i += this.columns) this.one.run(...p.slice(i, i + this.columns));
    } finally {
      p.length = 0;
    }
  }
}
