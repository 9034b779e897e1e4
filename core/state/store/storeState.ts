/**
 * Committed state in the chain store's SQLite file (tables of migration m0002State): current accounts, storage and
 * code, trie nodes, and per-block change sets. Every write happens inside a transaction the chain store opened (the
 * block's SAVEPOINT via `putBlock(record, extra)`), so a block's state lands atomically with the block itself.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type SqlHandle, type StoreTransaction } from '../../store/connection.ts';
import { decodeAccount, encodeAccount, type AccountState } from '../account.ts';
import type { StateBackend } from '../backend.ts';
import type { StateChanges } from '../interface.ts';
import { bytesOfKey, keyOf } from '../keys.ts';
import { SqliteNodeStore } from './sqliteNodeStore.ts';
import { ChunkedInsert } from './chunkedInsert.ts';
import type { EncodedAccount } from '../stateRoot.ts';
import { GenerationalCache } from './generationalCache.ts';

const EMPTY = new Uint8Array(0);
/**
 * Bytes of decoded accounts kept between blocks (senders recur block after block). An entry is its hex key, the
 * decoded record (two bigints, two hashes) and its RLP: measured at ~410 bytes (70k accounts held 28.6 MB).
 */
export const ACCOUNT_CACHE_BYTES = 8 << 20;
const ACCOUNT_ENTRY_BYTES = 420;
/** Bytes of storage values kept between blocks (a token's balance slots recur): key of 104 hex chars and the value. */
export const SLOT_CACHE_BYTES = 4 << 20;
const SLOT_ENTRY_OVERHEAD = 260;

/**
 * Estimated bytes of buffered trie nodes and account rows past which an accepted block writes the batch so far: the
 * batch's memory bound (decision 0025 writes them once per batch; a 128-block batch of full blocks would otherwise
 * hold ~100 MB of them). Nodes of intermediate states written early are the cost: measured in BENCHMARKS.md (Follow).
 */
export const BATCH_FLUSH_BYTES = 8 << 20;
/** A batch's account row: the map entry; the record itself is shared with the account cache. */
const BATCH_ROW_BYTES = 120;

/** The chain store's batch seam as this class needs it (`ChainStore.addBatchHook`; see `attach`). */
export interface BatchSource {
  addBatchHook(hook: { blockAccepted(): void; beforeCommit(tx: StoreTransaction): void; batchAborted(): void }): () => void;
}

/** A cached account row: decoded value and its stored RLP (the change set records the RLP). */
type CachedAccount = { account: AccountState; rlp: Uint8Array } | null;

type Stmt<P extends unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

/** Current state over SQLite; also writes change sets (see history.ts for reads at older blocks). */
export class StoreState implements StateBackend {
  readonly nodes: SqliteNodeStore;
  private readonly accounts = new GenerationalCache<string, CachedAccount>(
    ACCOUNT_CACHE_BYTES,
    () => ACCOUNT_ENTRY_BYTES,
    () => new Map(),
  );
  /** Committed slot values by address key + slot key (EMPTY = known zero); kept in step by `applyChanges`. */
  private readonly slots = new GenerationalCache<string, Uint8Array>(
    SLOT_CACHE_BYTES,
    (_key, value) => value.length + SLOT_ENTRY_OVERHEAD,
    () => new Map(),
  );
  /** Multi-row writers for the two tables a block writes a row per touched account into. */
  private readonly accountRows: ChunkedInsert;
  private readonly accountChangeRows: ChunkedInsert;
  /**
   * Deferred writes (decision 0025, after `attach`): account rows of the block being committed (`staged`, dropped if
   * the block is rejected) and of the accepted blocks of the open batch (`batch`), written once per batch with the
   * trie nodes reachable from the last accepted root. null = delete the row.
   */
  private deferred = false;
  private readonly staged = new Map<string, CachedAccount>();
  private readonly batch = new Map<string, CachedAccount>();
  private stagedRoot: Uint8Array | undefined;
  private acceptedRoot: Uint8Array | undefined;
  private readonly s: {
    account: Stmt<[Uint8Array], Uint8Array>;
    storage: Stmt<[Uint8Array, Uint8Array], { value: Uint8Array }>;
    code: Stmt<[Uint8Array], { code: Uint8Array }>;
    delAccount: Stmt<[Uint8Array]>;
    putStorage: Stmt<[Uint8Array, Uint8Array, Uint8Array]>;
    delStorage: Stmt<[Uint8Array, Uint8Array]>;
    allStorage: Stmt<[Uint8Array], { slot: Uint8Array; value: Uint8Array }>;
    clearStorage: Stmt<[Uint8Array]>;
    putCode: Stmt<[Uint8Array, Uint8Array]>;
    storageChange: Stmt<[Uint8Array, Uint8Array, number, Uint8Array]>;
    putRoot: Stmt<[number, Uint8Array]>;
  };

  private readonly db: BetterSqlite3.Database;

  constructor(handle: SqlHandle) {
    const db = connectionOf(handle);
    this.db = db;
    this.nodes = new SqliteNodeStore(db);
    this.accountRows = new ChunkedInsert(db, 'INSERT OR REPLACE INTO state_accounts (address, account)', 2);
    this.accountChangeRows = new ChunkedInsert(db, 'INSERT OR IGNORE INTO state_account_changes (address, number, prev)', 3);
    this.s = {
      // pluck: the bare column value, no row object per read (one read per account first touched in a batch).
      account: db.prepare<[Uint8Array], Uint8Array>('SELECT account FROM state_accounts WHERE address = ?').pluck(),
      storage: db.prepare('SELECT value FROM state_storage WHERE address = ? AND slot = ?'),
      code: db.prepare('SELECT code FROM state_code WHERE hash = ?'),
      delAccount: db.prepare('DELETE FROM state_accounts WHERE address = ?'),
      putStorage: db.prepare('INSERT OR REPLACE INTO state_storage (address, slot, value) VALUES (?, ?, ?)'),
      delStorage: db.prepare('DELETE FROM state_storage WHERE address = ? AND slot = ?'),
      allStorage: db.prepare('SELECT slot, value FROM state_storage WHERE address = ?'),
      clearStorage: db.prepare('DELETE FROM state_storage WHERE address = ?'),
      putCode: db.prepare('INSERT OR IGNORE INTO state_code (hash, code) VALUES (?, ?)'),
      storageChange: db.prepare('INSERT OR IGNORE INTO state_storage_changes (address, slot, number, prev) VALUES (?, ?, ?, ?)'),
      putRoot: db.prepare('INSERT OR REPLACE INTO state_roots (number, root) VALUES (?, ?)'),
    };
  }

  getAccount(address: Uint8Array): AccountState | undefined {
    return this.cachedAccount(address, keyOf(address))?.account;
  }

  getAccountByKey(key: string, address: Uint8Array): AccountState | undefined {
    return this.cachedAccount(address, key)?.account;
  }

  private cachedAccount(address: Uint8Array, key: string): CachedAccount {
    // Newest first; null (known absent) is an answer too, so each layer is asked with `get` !== undefined.
    let hit = this.accounts.get(key);
    if (hit === undefined) hit = this.staged.get(key);
    if (hit === undefined) hit = this.batch.get(key);
    if (hit !== undefined) return hit;
    const row = this.s.account.get(address);
    const entry: CachedAccount = row === undefined ? null : { account: decodeAccount(row), rlp: new Uint8Array(row) };
    this.remember(key, entry);
    return entry;
  }

  private remember(key: string, entry: CachedAccount): void {
    this.accounts.set(key, entry);
  }

  /**
   * Forgets cached accounts. Call after anything changes `state_accounts` behind this object (an unwind) or when a
   * block's transaction was rolled back after `commitBlock` ran (a failed COMMIT).
   */
  clearCache(): void {
    this.staged.clear();
    this.stagedRoot = undefined;
    this.accounts.clear();
    this.slots.clear();
    this.accountRows.discard();
    this.accountChangeRows.discard();
  }

  /**
   * Drops the read caches (accounts, slots, trie nodes) between blocks: an idle follower gives their bytes back
   * (decision 0032's budgets, up to 30 MiB with the hashed keys) and the next block reads its rows again. Rows not
   * yet written (the open batch's) stay where they are; a staged block keeps its caches.
   */
  dropReadCaches(): void {
    if (this.staged.size > 0) return;
    this.accounts.clear();
    this.slots.clear();
    this.nodes.dropReadCache();
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const key = keyOf(address) + keyOf(slot);
    const hit = this.slots.get(key);
    if (hit !== undefined) return hit;
    const row = this.s.storage.get(address, slot);
    const value = row === undefined ? EMPTY : new Uint8Array(row.value);
    this.slots.set(key, value);
    return value;
  }

  getCode(codeHash: Uint8Array): Uint8Array | undefined {
    const row = this.s.code.get(codeHash);
    return row === undefined ? undefined : new Uint8Array(row.code);
  }

  /** Writes a block's change set (previous values), its changes and its root. Call inside the block's transaction. */
  commitBlock(
    number: number,
    root: Uint8Array,
    changes: StateChanges,
    storageRoots: ReadonlyMap<string, Uint8Array>,
    encoded?: ReadonlyMap<string, EncodedAccount>,
  ): void {
    // A staged block never accepted was rejected (its importer also clears the cache): drop it before reading.
    this.staged.clear();
    this.recordChangeSet(number, changes);
    this.writeChanges(changes, storageRoots, encoded, this.deferred);
    if (this.deferred) this.stagedRoot = root;
    this.s.putRoot.run(number, root);
  }

  /**
   * Defers account rows and trie nodes to once per batch of `store` (decision 0025): a block's rows are staged in
   * `commitBlock`, join the batch when the store accepts the block, and are written (with the trie nodes reachable
   * from the last accepted root) before the batch's COMMIT, or earlier when the batch grows past a memory bound.
   * Returns the function that detaches (after writing nothing: call it between batches).
   */
  attach(store: BatchSource): () => void {
    this.deferred = true;
    const off = store.addBatchHook({
      blockAccepted: () => this.blockAccepted(),
      beforeCommit: () => this.writeBatch(),
      batchAborted: () => this.batchAborted(),
    });
    return () => {
      off();
      this.deferred = false;
    };
  }

  private blockAccepted(): void {
    if (this.stagedRoot === undefined) return;
    for (const [key, entry] of this.staged) this.batch.set(key, entry);
    this.staged.clear();
    this.acceptedRoot = this.stagedRoot;
    this.stagedRoot = undefined;
    // Inside the batch transaction, outside any block savepoint: these rows survive a later block's rollback.
    if (this.db.inTransaction && this.nodes.pendingSize + this.batch.size * BATCH_ROW_BYTES >= BATCH_FLUSH_BYTES) this.writeBatch();
  }

  /** Writes the batch's account rows and the trie nodes of its last accepted root; runs inside the open transaction. */
  private writeBatch(): void {
    this.staged.clear();
    this.stagedRoot = undefined;
    for (const [key, entry] of this.batch) {
      if (entry === null) this.s.delAccount.run(bytesOfKey(key));
      else this.accountRows.add(bytesOfKey(key), entry.rlp);
    }
    this.accountRows.flush();
    this.batch.clear();
    if (this.acceptedRoot !== undefined) this.nodes.flushReachable(this.acceptedRoot);
    this.nodes.dropPending();
    this.acceptedRoot = undefined;
  }

  /** The store rolled the whole open batch back: its buffered rows and nodes are gone with it. */
  private batchAborted(): void {
    this.batch.clear();
    this.acceptedRoot = undefined;
    this.nodes.dropPending();
    this.clearCache();
  }

  /** Records, for every key the block writes, the value it had before (first writer of a block wins). */
  private recordChangeSet(number: number, changes: StateChanges): void {
    const addresses = new Set<string>([...changes.accounts.keys(), ...changes.storage.keys(), ...changes.storageCleared]);
    for (const addrKey of addresses) {
      const address = bytesOfKey(addrKey);
      if (changes.accounts.has(addrKey) || changes.storage.has(addrKey)) {
        const prev = this.cachedAccount(address, addrKey);
        this.accountChangeRows.add(address, number, prev === null ? null : prev.rlp);
      }
      if (changes.storageCleared.has(addrKey)) {
        for (const row of this.s.allStorage.all(address)) this.s.storageChange.run(address, row.slot, number, row.value);
      }
      const slots = changes.storage.get(addrKey);
      if (slots !== undefined) {
        for (const slotKey of slots.keys()) {
          const slot = bytesOfKey(slotKey);
          this.s.storageChange.run(address, slot, number, this.getStorage(address, slot));
        }
      }
    }
    this.accountChangeRows.flush();
  }

  /**
   * Makes `changes` current (no change set): genesis, and the second half of `commitBlock`. `encoded`, when given, is
   * the root computation's account records and RLPs (`RootUpdate.encoded`), stored as they are.
   */
  applyChanges(changes: StateChanges, storageRoots: ReadonlyMap<string, Uint8Array>, encoded?: ReadonlyMap<string, EncodedAccount>): void {
    this.writeChanges(changes, storageRoots, encoded, false);
  }

  /** `applyChanges`; with `defer`, account rows are staged and trie nodes stay buffered (see `attach`). */
  private writeChanges(
    changes: StateChanges,
    storageRoots: ReadonlyMap<string, Uint8Array>,
    encoded: ReadonlyMap<string, EncodedAccount> | undefined,
    defer: boolean,
  ): void {
    for (const addrKey of changes.storageCleared) this.s.clearStorage.run(bytesOfKey(addrKey));
    // Rare (a self-destruct, a create over an address with storage): forget every cached slot rather than index them by address.
    if (changes.storageCleared.size > 0) this.slots.clear();
    for (const [addrKey, slots] of changes.storage) {
      const address = bytesOfKey(addrKey);
      for (const [slotKey, value] of slots) {
        if (value.length === 0) this.s.delStorage.run(address, bytesOfKey(slotKey));
        else this.s.putStorage.run(address, bytesOfKey(slotKey), value);
        this.slots.set(addrKey + slotKey, value.length === 0 ? EMPTY : value);
      }
    }
    const written = new Set<string>();
    for (const [addrKey, account] of changes.accounts) {
      written.add(addrKey);
      if (account === null) {
        if (defer) this.staged.set(addrKey, null);
        else this.s.delAccount.run(bytesOfKey(addrKey));
        this.remember(addrKey, null);
        continue;
      }
      const done = encoded?.get(addrKey);
      if (done !== undefined) {
        this.putEncodedRow(addrKey, done, defer);
        continue;
      }
      const root = storageRoots.get(addrKey);
      this.putAccountRow(addrKey, root === undefined ? account : { ...account, storageRoot: root }, defer);
    }
    for (const [addrKey, root] of storageRoots) {
      if (written.has(addrKey)) continue;
      const done = encoded?.get(addrKey);
      if (done !== undefined) {
        this.putEncodedRow(addrKey, done, defer);
        continue;
      }
      const current = this.getAccount(bytesOfKey(addrKey));
      if (current !== undefined) this.putAccountRow(addrKey, { ...current, storageRoot: root }, defer);
    }
    for (const [hashKey, code] of changes.code) this.s.putCode.run(bytesOfKey(hashKey), code);
    if (defer) return;
    this.accountRows.flush();
    this.nodes.flush();
  }

  private putAccountRow(addrKey: string, account: AccountState, defer: boolean): void {
    this.putEncodedRow(addrKey, { account, rlp: encodeAccount(account) }, defer);
  }

  private putEncodedRow(addrKey: string, entry: EncodedAccount, defer: boolean): void {
    if (defer) this.staged.set(addrKey, entry);
    else this.accountRows.add(bytesOfKey(addrKey), entry.rlp);
    this.remember(addrKey, entry);
  }

  /** Records the state root of the genesis block. */
  putRoot(number: number, root: Uint8Array): void {
    this.s.putRoot.run(number, root);
  }
}
