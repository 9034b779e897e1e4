/**
 * The SQLite connection behind a store handle. Only the two folders that hold the datadir's SQL import this file
 * (core/store and core/state/store; eslint.config.js keeps every other core folder out), so the rest of the node
 * reaches the tables through the store's and the state store's functions alone: a ChainReader's connection is
 * private, and a write callback receives an opaque StoreTransaction, not the connection.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ChainReader } from './read/chainReader.ts';

declare const opaque: unique symbol;

/** What a write callback gets inside the store's open transaction (`putBlock`'s and `unwind`'s extra writes). */
export interface StoreTransaction {
  readonly [opaque]: 'StoreTransaction';
}

/** A store handle (reader, writer, transaction) or, inside the two SQL folders, a connection itself. */
export type SqlHandle = ChainReader | StoreTransaction | BetterSqlite3.Database;

const connections = new WeakMap<object, BetterSqlite3.Database>();

/** Binds `handle` to `db` (the store does this for each reader and transaction it makes). */
export function bindConnection(handle: object, db: BetterSqlite3.Database): void {
  connections.set(handle, db);
}

/** A new opaque transaction handle for `db`. */
export function transactionHandle(db: BetterSqlite3.Database): StoreTransaction {
  const tx = Object.freeze({}) as StoreTransaction;
  bindConnection(tx, db);
  return tx;
}

/** The connection of `handle`; a connection is returned as it is. */
export function connectionOf(handle: SqlHandle): BetterSqlite3.Database {
  const bound = connections.get(handle);
  if (bound !== undefined) return bound;
  if (typeof (handle as Partial<BetterSqlite3.Database>).prepare === 'function') return handle as BetterSqlite3.Database;
  // A ChainReader always has a bound connection; an unbound object is a caller's mistake.
  throw new TypeError('not a store handle: pass a ChainReader, a ChainStore or the StoreTransaction a write callback received');
}
