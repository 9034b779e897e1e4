/**
 * Reads of the state as it was after an earlier block, from the change sets: the value a key had before the first
 * block after `number` that wrote it, or the current value when no later block did. Used by eth_getBalance /
 * eth_call at a block number (and by `StateView` in core/exec/call).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { decodeAccount, type AccountState } from '../account.ts';
import { keyOf } from '../keys.ts';
import type { StateReader } from '../interface.ts';
import { StateError } from '../errors.ts';

const EMPTY = new Uint8Array(0);

type HistoryStatements = {
  root: BetterSqlite3.Statement<[number], { root: Uint8Array }>;
  accountChange: BetterSqlite3.Statement<[Uint8Array, number], { prev: Uint8Array | null }>;
  storageChange: BetterSqlite3.Statement<[Uint8Array, Uint8Array, number], { prev: Uint8Array }>;
  account: BetterSqlite3.Statement<[Uint8Array], { account: Uint8Array }>;
  storage: BetterSqlite3.Statement<[Uint8Array, Uint8Array], { value: Uint8Array }>;
  code: BetterSqlite3.Statement<[Uint8Array], { code: Uint8Array }>;
};

/**
 * The statements of each connection, prepared once: the node builds a HistoricalState for every pool admission and
 * every adopted head, and preparing six statements each time was ~0.4 ms of an automine send's main-thread work.
 */
const statementsOf = new WeakMap<BetterSqlite3.Database, HistoryStatements>();

function statements(db: BetterSqlite3.Database): HistoryStatements {
  let s = statementsOf.get(db);
  if (s === undefined) {
    s = {
      root: db.prepare('SELECT root FROM state_roots WHERE number = ?'),
      accountChange: db.prepare('SELECT prev FROM state_account_changes WHERE address = ? AND number > ? ORDER BY number LIMIT 1'),
      storageChange: db.prepare(
        'SELECT prev FROM state_storage_changes WHERE address = ? AND slot = ? AND number > ? ORDER BY number LIMIT 1',
      ),
      account: db.prepare('SELECT account FROM state_accounts WHERE address = ?'),
      storage: db.prepare('SELECT value FROM state_storage WHERE address = ? AND slot = ?'),
      code: db.prepare('SELECT code FROM state_code WHERE hash = ?'),
    };
    statementsOf.set(db, s);
  }
  return s;
}

/** Most bytes of contract code kept per connection (`CodeCache`). */
const CODE_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Contract code by hash, per connection, least recently used first out: a hash names the same bytes forever, so
 * no write or reorg makes an entry stale. Handing out the same array for the same hash is the point: an EVM that
 * serves one job after another (core/exec/evmHostPool.ts) keys its jump analyses by the code array, and a fresh
 * array per job had it analyse every contract again (~0.5 ms and ~350 kB of garbage per eth_simulateV1 of 10 calls).
 * Callers must not write into the arrays (the EVM and the tracers only read code).
 */
class CodeCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  get(key: string): Uint8Array | undefined {
    const code = this.entries.get(key);
    if (code !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, code);
    }
    return code;
  }

  set(key: string, code: Uint8Array): void {
    if (code.length > CODE_CACHE_BYTES / 4) return;
    this.entries.set(key, code);
    this.bytes += code.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= CODE_CACHE_BYTES) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

const codeCacheOf = new WeakMap<BetterSqlite3.Database, CodeCache>();

function codeCache(db: BetterSqlite3.Database): CodeCache {
  let c = codeCacheOf.get(db);
  if (c === undefined) {
    c = new CodeCache();
    codeCacheOf.set(db, c);
  }
  return c;
}

/** A `StateReader` of the state after block `number`. */
export class HistoricalState implements StateReader {
  private readonly s: HistoryStatements;
  private readonly code: CodeCache;

  constructor(
    handle: SqlHandle,
    readonly number: number,
  ) {
    const db = connectionOf(handle);
    this.s = statements(db);
    this.code = codeCache(db);
    if (this.s.root.get(number) === undefined)
      throw new StateError('STATE_UNAVAILABLE', `state at block ${number} is not available (pruned or not yet imported)`, { number });
  }

  getAccount(address: Uint8Array): AccountState | undefined {
    const change = this.s.accountChange.get(address, this.number);
    if (change !== undefined) return change.prev === null ? undefined : decodeAccount(change.prev);
    const row = this.s.account.get(address);
    return row === undefined ? undefined : decodeAccount(row.account);
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const change = this.s.storageChange.get(address, slot, this.number);
    if (change !== undefined) return new Uint8Array(change.prev);
    const row = this.s.storage.get(address, slot);
    return row === undefined ? EMPTY : new Uint8Array(row.value);
  }

  getCode(codeHash: Uint8Array): Uint8Array | undefined {
    const key = keyOf(codeHash);
    const cached = this.code.get(key);
    if (cached !== undefined) return cached;
    const row = this.s.code.get(codeHash);
    if (row === undefined) return undefined;
    const code = new Uint8Array(row.code);
    this.code.set(key, code);
    return code;
  }
}

/** The state root recorded for block `number`, if its state is available. */
export function stateRootAt(handle: SqlHandle, number: number): Uint8Array | undefined {
  const db = connectionOf(handle);
  const row = db.prepare('SELECT root FROM state_roots WHERE number = ?').get(number) as { root: Uint8Array } | undefined;
  return row === undefined ? undefined : new Uint8Array(row.root);
}

/**
 * Rolls current state back to after block `number` (a reorg): every key written above it gets the value it had
 * before the first such write; change sets and roots above it go. Run inside the store's unwind transaction.
 */
export function unwindState(handle: SqlHandle, number: number): void {
  const db = connectionOf(handle);
  const accounts = db
    .prepare('SELECT address, prev, MIN(number) AS n FROM state_account_changes WHERE number > ? GROUP BY address')
    .all(number) as { address: Uint8Array; prev: Uint8Array | null }[];
  const putAccount = db.prepare('INSERT OR REPLACE INTO state_accounts (address, account) VALUES (?, ?)');
  const delAccount = db.prepare('DELETE FROM state_accounts WHERE address = ?');
  for (const a of accounts) {
    if (a.prev === null) delAccount.run(a.address);
    else putAccount.run(a.address, a.prev);
  }
  const slots = db
    .prepare('SELECT address, slot, prev, MIN(number) AS n FROM state_storage_changes WHERE number > ? GROUP BY address, slot')
    .all(number) as { address: Uint8Array; slot: Uint8Array; prev: Uint8Array }[];
  const putSlot = db.prepare('INSERT OR REPLACE INTO state_storage (address, slot, value) VALUES (?, ?, ?)');
  const delSlot = db.prepare('DELETE FROM state_storage WHERE address = ? AND slot = ?');
  for (const s of slots) {
    if (s.prev.length === 0) delSlot.run(s.address, s.slot);
    else putSlot.run(s.address, s.slot, s.prev);
  }
  db.prepare('DELETE FROM state_account_changes WHERE number > ?').run(number);
  db.prepare('DELETE FROM state_storage_changes WHERE number > ?').run(number);
  db.prepare('DELETE FROM state_roots WHERE number > ?').run(number);
}

/** Drops history older than `keepFrom` (the `--state.history N` option): reads below it then fail clearly. */
export function pruneHistory(handle: SqlHandle, keepFrom: number): void {
  const db = connectionOf(handle);
  db.prepare('DELETE FROM state_account_changes WHERE number <= ?').run(keepFrom);
  db.prepare('DELETE FROM state_storage_changes WHERE number <= ?').run(keepFrom);
  db.prepare('DELETE FROM state_roots WHERE number < ?').run(keepFrom);
}
