/**
 * Seams of the state layer. A `StateReader` is where committed state comes from (memory for test vectors, the store
 * for a node); `JournaledState` overlays it during a block and hands back a `StateChanges` set that the root
 * computation and the store both consume.
 */
import type { AccountState } from './account.ts';

/** Read access to committed state. Synchronous: both implementations (memory, SQLite) answer without I/O waits. */
export interface StateReader {
  /** The account at `address` (20 bytes), or undefined when absent. */
  getAccount(address: Uint8Array): AccountState | undefined;
  /**
   * Optional fast path of `getAccount` for a caller that already holds the address's map key (`keyOf(address)`):
   * the hot loop of block execution derives each key once per transaction instead of once per read.
   */
  getAccountByKey?(key: string, address: Uint8Array): AccountState | undefined;
  /** The storage value (minimal bytes, empty = zero) of `slot` (32 bytes) under `address`. */
  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  /** Code by its keccak256 hash, or undefined when unknown. */
  getCode(codeHash: Uint8Array): Uint8Array | undefined;
}

/** Everything one block changed, keyed by unprefixed hex (see keys.ts). */
export interface StateChanges {
  /** New value of each written account; null = deleted (self-destructed or EIP-161 cleaned). */
  readonly accounts: Map<string, AccountState | null>;
  /** Addresses whose whole storage was wiped before the writes in `storage` (deletion or re-creation). */
  readonly storageCleared: Set<string>;
  /** Written slots per address; an empty value deletes the slot. */
  readonly storage: Map<string, Map<string, Uint8Array>>;
  /** Code first seen in this block, by code hash. */
  readonly code: Map<string, Uint8Array>;
}
