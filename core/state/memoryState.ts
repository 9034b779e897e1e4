/**
 * Committed state held in memory: the backend of state tests, genesis building and the in-thread tests. The store
 * backend (`storeState.ts`) implements the same `StateBackend` surface over SQLite.
 */
import type { AccountState } from './account.ts';
import type { StateBackend } from './backend.ts';
import type { StateChanges } from './interface.ts';
import { keyOf } from './keys.ts';
import { MemoryNodeStore, type TrieNodeStore } from '../trie/index.ts';

const EMPTY = new Uint8Array(0);

/** A `StateBackend` in Maps. */
export class MemoryState implements StateBackend {
  readonly accounts = new Map<string, AccountState>();
  readonly storage = new Map<string, Map<string, Uint8Array>>();
  readonly code = new Map<string, Uint8Array>();
  readonly nodes: TrieNodeStore = new MemoryNodeStore();

  getAccount(address: Uint8Array): AccountState | undefined {
    return this.accounts.get(keyOf(address));
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.storage.get(keyOf(address))?.get(keyOf(slot)) ?? EMPTY;
  }

  getCode(codeHash: Uint8Array): Uint8Array | undefined {
    return this.code.get(keyOf(codeHash));
  }

  applyChanges(changes: StateChanges, storageRoots: ReadonlyMap<string, Uint8Array>): void {
    for (const addrKey of changes.storageCleared) this.storage.delete(addrKey);
    for (const [addrKey, slots] of changes.storage) {
      let map = this.storage.get(addrKey);
      if (map === undefined) {
        map = new Map();
        this.storage.set(addrKey, map);
      }
      for (const [slotKey, value] of slots) {
        if (value.length === 0) map.delete(slotKey);
        else map.set(slotKey, value);
      }
    }
    for (const [addrKey, account] of changes.accounts) {
      if (account === null) this.accounts.delete(addrKey);
      else this.accounts.set(addrKey, account);
    }
    for (const [addrKey, root] of storageRoots) {
      const account = this.accounts.get(addrKey);
      if (account !== undefined) this.accounts.set(addrKey, { ...account, storageRoot: root });
    }
    for (const [hashKey, code] of changes.code) this.code.set(hashKey, code);
  }
}
