/**
 * Typed errors of the chain store. Every refusal names what it found and what it needed (a file, an offset, a
 * setting), so an operator can act on the message alone and tests can match on `code`.
 */
import { XoneError, type CoreCode } from '../errors.ts';

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
  | CoreCode<'STORE_READ_TIMEOUT'> // a read passed its budget or its caller's deadline, or its caller aborted it
  | CoreCode<'STORE_RESULT_LIMIT'> // a scan matched more rows than its caller's limit
  | 'STORE_BAD_OPTIONS'; // invalid options

/** Raised by core/store; `meta` holds the values that explain it. */
export class StoreError extends XoneError<StoreErrorCode> {}

/** What ended a read early: the store's own budget, the caller's deadline, or the caller's abort signal. */
export type ReadStopReason = 'budget' | 'deadline' | 'aborted';

const STOP_TEXT: Record<ReadStopReason, (budgetMs: number) => string> = {
  budget: (ms) => `deadline ${ms} ms`,
  deadline: () => "the caller's deadline passed",
  aborted: () => 'the caller aborted',
};

/** A read passed its deadline; `meta` has `elapsedMs`, `deadlineMs`, `rowsScanned` and `reason`. */
export class StoreTimeoutError extends StoreError {
  constructor(what: string, elapsedMs: number, deadlineMs: number, rowsScanned: number, reason: ReadStopReason = 'budget') {
    super(
      'STORE_READ_TIMEOUT',
      `${what} stopped after ${elapsedMs.toFixed(1)} ms (${STOP_TEXT[reason](deadlineMs)}, ${rowsScanned} rows scanned)`,
      { what, elapsedMs, deadlineMs, rowsScanned, reason },
    );
  }
}

/** A scan matched more than `limit` rows; the message is geth's eth_getLogs wording. */
export class StoreResultLimitError extends StoreError {
  constructor(what: string, limit: number, rowsScanned: number) {
    super('STORE_RESULT_LIMIT', `query returned more than ${limit} results`, { what, limit, rowsScanned });
  }
}
