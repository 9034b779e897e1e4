/** The shape of one schema migration. */
import type BetterSqlite3 from 'better-sqlite3';

/**
 * One numbered, append-only schema step. `up` runs inside the migration transaction that the migrator opens (never
 * open or commit a transaction inside it). A released migration is never edited: changes go in a new one.
 */
export interface Migration {
  /** 1, 2, 3, … with no gaps, in the order of `MIGRATIONS`. */
  version: number;
  /** Stable name stored next to the version; a mismatch at open means a different build wrote the file. */
  name: string;
  up(db: BetterSqlite3.Database): void;
}
