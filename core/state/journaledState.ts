/**
 * In-memory journaled state over a committed `StateReader`: the working state of one block (or one eth_call).
 * Reads fall through to the reader and are cached; writes go to the overlay with an undo entry, so the EVM's nested
 * call frames can checkpoint and revert cheaply. `changes()` hands back what the block wrote.
 */
import { EMPTY_ACCOUNT, type AccountState } from './account.ts';
import type { StateChanges, StateReader } from './interface.ts';
import { keyOf } from './keys.ts';
import { keccak256, KECCAK_EMPTY } from '../primitives/keccak.ts';

const EMPTY_VALUE = new Uint8Array(0);

/** Undo entries: restoring the previous value of one cache cell. */
type Undo = () => void;

/** The working state of a block. One instance per execution context; not shared between threads. */
export class JournaledState {
  /** Current account values; null = known absent. */
  private readonly accounts = new Map<string, AccountState | null>();
  /** Current values of slots that were read or written, per address. */
  private readonly storage = new Map<string, Map<string, Uint8Array>>();
  /** Addresses whose committed storage is hidden (wiped in this block). */
  private readonly cleared = new Set<string>();
  private readonly code = new Map<string, Uint8Array>();
  private readonly newCode = new Map<string, Uint8Array>();
  private readonly dirtyAccounts = new Set<string>();
  private readonly dirtyStorage = new Map<string, Set<string>>();
  private readonly journal: Undo[] = [];
  private readonly checkpoints: number[] = [];
  /** Slot values at the start of the current transaction (EIP-2200 "original value"), filled on first write. */
  private readonly original = new Map<string, Map<string, Uint8Array>>();
  /**
   * Values before the block's first write of each dirty key (UNKNOWN: never read before it was written), so
   * `changes()` can leave out writes that end where they began (the Prague request contracts rewrite their zero slots
   * every block, and a system call puts SYSTEM_ADDRESS back as it was).
   */
  private readonly committedAccounts = new Map<string, AccountState | null | typeof UNKNOWN>();
  private readonly committedSlots = new Map<string, Map<string, Uint8Array>>();

  constructor(private readonly reader: StateReader) {}

  /** The committed state this overlay reads through. */
  get base(): StateReader {
    return this.reader;
  }

  getAccount(address: Uint8Array): AccountState | undefined {
    return this.accountByKey(keyOf(address)) ?? undefined;
  }

  /** Reads an account by its map key. */
  accountByKey(key: string, address?: Uint8Array): AccountState | null {
    const cached = this.accounts.get(key);
    if (cached !== undefined) return cached;
    const bytes = address ?? Buffer.from(key, 'hex');
    const loaded = (this.reader.getAccountByKey ? this.reader.getAccountByKey(key, bytes) : this.reader.getAccount(bytes)) ?? null;
    this.accounts.set(key, loaded);
    return loaded;
  }

  /** Writes (or with null deletes) an account; deleting also wipes its storage. */
  putAccount(address: Uint8Array, account: AccountState | null): void {
    const key = keyOf(address);
    this.setAccountByKey(key, account);
    if (account === null) this.clearStorageByKey(key);
  }

  /**
   * Writes an account by its map key (the caller already holds `keyOf(address)`). Unlike `putAccount(address, null)`,
   * deleting here does not wipe storage: only for callers that know the account holds none (the transfer fast path).
   */
  setAccountByKey(key: string, account: AccountState | null): void {
    // Between transactions (no checkpoint open) nothing can be reverted, so no undo entry is needed.
    if (this.checkpoints.length !== 0) {
      const had = this.accounts.has(key);
      const prev = this.accounts.get(key);
      this.journal.push(() => {
        if (had) this.accounts.set(key, prev as AccountState | null);
        else this.accounts.delete(key);
      });
    }
    if (!this.dirtyAccounts.has(key)) {
      const loaded = this.accounts.get(key);
      this.committedAccounts.set(key, loaded === undefined ? UNKNOWN : loaded);
      this.dirtyAccounts.add(key);
    }
    this.accounts.set(key, account);
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.storageByKey(keyOf(address), keyOf(slot), address, slot);
  }

  private storageByKey(addrKey: string, slotKey: string, address?: Uint8Array, slot?: Uint8Array): Uint8Array {
    let slots = this.storage.get(addrKey);
    const cached = slots?.get(slotKey);
    if (cached !== undefined) return cached;
    const value = this.cleared.has(addrKey)
      ? EMPTY_VALUE
      : this.reader.getStorage(address ?? Buffer.from(addrKey, 'hex'), slot ?? Buffer.from(slotKey, 'hex'));
    if (slots === undefined) {
      slots = new Map();
      this.storage.set(addrKey, slots);
    }
    slots.set(slotKey, value);
    return value;
  }

  /** Writes a slot; `value` must be minimal (empty = zero). */
  putStorage(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    const addrKey = keyOf(address);
    const slotKey = keyOf(slot);
    const prev = this.storageByKey(addrKey, slotKey, address, slot);
    let orig = this.original.get(addrKey);
    if (orig === undefined) {
      orig = new Map();
      this.original.set(addrKey, orig);
    }
    if (!orig.has(slotKey)) orig.set(slotKey, prev);
    const slots = this.storage.get(addrKey) as Map<string, Uint8Array>;
    this.journal.push(() => slots.set(slotKey, prev));
    slots.set(slotKey, value);
    let dirty = this.dirtyStorage.get(addrKey);
    if (dirty === undefined) {
      dirty = new Set();
      this.dirtyStorage.set(addrKey, dirty);
    }
    if (!dirty.has(slotKey)) {
      let committed = this.committedSlots.get(addrKey);
      if (committed === undefined) {
        committed = new Map();
        this.committedSlots.set(addrKey, committed);
      }
      committed.set(slotKey, prev);
      dirty.add(slotKey);
    }
  }

  /** The slot's value at the start of the current transaction. */
  getOriginalStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const addrKey = keyOf(address);
    const slotKey = keyOf(slot);
    const orig = this.original.get(addrKey)?.get(slotKey);
    return orig ?? this.storageByKey(addrKey, slotKey, address, slot);
  }

  /** Forgets the per-transaction original values; called between transactions. */
  clearOriginalStorage(): void {
    this.original.clear();
  }

  /** Wipes every slot of `address` (account deletion or contract creation over a storage-holding address). */
  clearStorage(address: Uint8Array): void {
    this.clearStorageByKey(keyOf(address));
  }

  private clearStorageByKey(addrKey: string): void {
    const prevSlots = this.storage.get(addrKey);
    const wasCleared = this.cleared.has(addrKey);
    const prevDirty = this.dirtyStorage.get(addrKey);
    this.journal.push(() => {
      if (prevSlots === undefined) this.storage.delete(addrKey);
      else this.storage.set(addrKey, prevSlots);
      if (!wasCleared) this.cleared.delete(addrKey);
      if (prevDirty === undefined) this.dirtyStorage.delete(addrKey);
      else this.dirtyStorage.set(addrKey, prevDirty);
    });
    this.storage.set(addrKey, new Map());
    this.cleared.add(addrKey);
    this.dirtyStorage.set(addrKey, new Set());
  }

  /** Code of the account at `address` (empty when none). */
  getCode(address: Uint8Array): Uint8Array {
    const account = this.getAccount(address);
    if (account === undefined) return EMPTY_VALUE;
    return this.codeByHash(account.codeHash);
  }

  /** Code by hash; throws when the state references code it does not hold (a corrupted store). */
  codeByHash(codeHash: Uint8Array): Uint8Array {
    const key = keyOf(codeHash);
    const cached = this.code.get(key);
    if (cached !== undefined) return cached;
    if (key === KECCAK_EMPTY_KEY) return EMPTY_VALUE;
    const loaded = this.reader.getCode(codeHash);
    if (loaded === undefined) throw new Error(`state: code ${key} referenced but not stored`);
    this.code.set(key, loaded);
    return loaded;
  }

  /** Sets the code of `address` (creating the account if absent). */
  putCode(address: Uint8Array, code: Uint8Array): void {
    const codeHash = code.length === 0 ? KECCAK_EMPTY : keccak256(code);
    const key = keyOf(codeHash);
    if (!this.code.has(key)) {
      this.code.set(key, code);
      this.newCode.set(key, code);
    }
    const account = this.getAccount(address) ?? EMPTY_ACCOUNT;
    this.putAccount(address, { ...account, codeHash });
  }

  /** Opens a nested checkpoint. */
  checkpoint(): void {
    this.checkpoints.push(this.journal.length);
  }

  /** Keeps the writes since the last checkpoint (they merge into the enclosing one). */
  commit(): void {
    if (this.checkpoints.pop() === undefined) throw new Error('state: commit without checkpoint');
    if (this.checkpoints.length === 0) this.journal.length = 0;
  }

  /** Undoes every write since the last checkpoint. */
  revert(): void {
    const mark = this.checkpoints.pop();
    if (mark === undefined) throw new Error('state: revert without checkpoint');
    for (let i = this.journal.length - 1; i >= mark; i--) (this.journal[i] as Undo)();
    this.journal.length = mark;
  }

  /** Depth of open checkpoints (0 between transactions). */
  get depth(): number {
    return this.checkpoints.length;
  }

  /**
   * What this overlay wrote, with final values. Accounts whose storage changed keep a stale `storageRoot` here; the
   * root computation fills it in.
   */
  changes(): StateChanges {
    const storage = new Map<string, Map<string, Uint8Array>>();
    for (const [addrKey, slotKeys] of this.dirtyStorage) {
      if (slotKeys.size === 0) continue;
      const slots = this.storage.get(addrKey) as Map<string, Uint8Array>;
      // A wiped account's slots are written in full (the wipe hides what was committed).
      const committed = this.cleared.has(addrKey) ? undefined : this.committedSlots.get(addrKey);
      const out = new Map<string, Uint8Array>();
      for (const slotKey of slotKeys) {
        const value = slots.get(slotKey) as Uint8Array;
        const before = committed?.get(slotKey);
        if (before === undefined || !sameBytes(before, value)) out.set(slotKey, value);
      }
      if (out.size > 0) storage.set(addrKey, out);
    }
    const accounts = new Map<string, AccountState | null>();
    for (const key of this.dirtyAccounts) {
      const account = this.accounts.get(key) ?? null;
      const before = this.committedAccounts.get(key);
      const unchanged =
        before !== undefined && before !== UNKNOWN && sameAccount(before, account) && !storage.has(key) && !this.cleared.has(key);
      if (!unchanged) accounts.set(key, account);
    }
    const storageCleared = new Set<string>();
    for (const key of this.cleared) storageCleared.add(key);
    return { accounts, storage, storageCleared, code: new Map(this.newCode) };
  }

  /**
   * Marks the current values as committed: the caller has written `changes()` into the reader. Keeps the read
   * caches (they now equal the committed state) and forgets the dirty sets, so the next block starts clean.
   */
  markCommitted(storageRoots?: ReadonlyMap<string, Uint8Array>): void {
    if (this.checkpoints.length !== 0) throw new Error('state: markCommitted inside a checkpoint');
    if (storageRoots !== undefined) {
      for (const [key, root] of storageRoots) {
        const account = this.accounts.get(key);
        if (account) this.accounts.set(key, { ...account, storageRoot: root });
      }
    }
    this.dirtyAccounts.clear();
    this.dirtyStorage.clear();
    this.committedAccounts.clear();
    this.committedSlots.clear();
    this.cleared.clear();
    this.newCode.clear();
    this.journal.length = 0;
    this.original.clear();
  }
}

const KECCAK_EMPTY_KEY = keyOf(KECCAK_EMPTY);

/** `committedAccounts` for a key written before it was ever read. */
const UNKNOWN = Symbol('unknown');

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameAccount(a: AccountState | null, b: AccountState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.nonce === b.nonce && a.balance === b.balance && sameBytes(a.storageRoot, b.storageRoot) && sameBytes(a.codeHash, b.codeHash);
}
