/**
 * Typed errors of the chain store. Every refusal names what it found and what it needed (a file, an offset, a
 * setting), so an operator can act on the message alone and tests can match on `code`.
 */
import { XoneError } from '../errors.ts';

/** Stable codes of every error the store raises on purpose. */
export type StoreErrorCode =
  | 'STORE_PRAGMA_MISMATCH' // a SQLite setting read back is not the required one
  | 'STORE_NOT_A_DATABASE' // chain.sqlite is not a SQLite file
  | 'STORE_FOREIGN_DATABASE' // chain.sqlite is SQLite but not a chain store
  | 'STORE_SCHEMA_TOO_NEW' // written by a newer build
  | 'STORE_SCHEMA_UNKNOWN' // an applied migration this build does not know
  | 'STORE_DATADIR_READONLY' // the datadir cannot be written
  | 'STORE_DISK_FULL' // ENOSPC / SQLITE_FULL while writing; the write was undone
  | 'STORE_IO' // any other I/O failure while writing; the write was undone
  | 'STORE_SEGMENT_CORRUPT' // a committed record fails its CRC or framing
  | 'STORE_SEGMENT_MISSING' // a committed segment file is missing or shorter than committed
  | 'STORE_BAD_BLOCK' // the block does not extend the canonical head, or its fields are malformed
  | 'STORE_CLOSED' // the store was closed
  | 'STORE_LOCKED' // another live process owns the datadir
  | 'STORE_READ_TIMEOUT' // a read passed its deadline
  | 'STORE_BAD_OPTIONS'; // invalid options

/** Raised by core/store; `meta` holds the values that explain it. */
export class StoreError extends XoneError<StoreErrorCode> {}

/** A read passed its deadline; `meta` has `elapsedMs`, `deadlineMs` and `rowsScanned`. */
export class StoreTimeoutError extends StoreError {
  constructor(what: string, elapsedMs: number, deadlineMs: number, rowsScanned: number) {
    super(
      'STORE_READ_TIMEOUT',
      `${what} stopped after ${elapsedMs.toFixed(1)} ms (deadline ${deadlineMs} ms, ${rowsScanned} rows scanned)`,
      {
        what,
        elapsedMs,
        deadlineMs,
        rowsScanned,
      },
    );
  }
}
