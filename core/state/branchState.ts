/**
 * The state of a side-chain block without touching the committed state: a base reader (the state after the block
 * where the side branch leaves the canonical chain, from the change sets) under the changes of the branch's blocks,
 * newest on top. What side-chain execution reads through (docs/state.md, "Side chains").
 */
import type { AccountState } from './account.ts';
import type { StateChanges, StateReader } from './interface.ts';
import type { EncodedAccount } from './stateRoot.ts';
import { keyOf } from './keys.ts';

const EMPTY = new Uint8Array(0);

/** What one executed block left behind, as a read layer and as the input to replay its trie update. */
export interface BranchLayer {
  /** The block's changes as execution returned them (the trie update replays these). */
  changes: StateChanges;
  /** Every account the block touched with its final record (storage root included); null = deleted. */
  accounts: ReadonlyMap<string, AccountState | null>;
}

/** Builds a layer from a block's changes and its root computation's final account records. */
export function branchLayer(changes: StateChanges, encoded: ReadonlyMap<string, EncodedAccount>): BranchLayer {
  const accounts = new Map<string, AccountState | null>();
  for (const [key, entry] of encoded) accounts.set(key, entry.account);
  for (const [key, account] of changes.accounts) if (account === null) accounts.set(key, null);
  return { changes, accounts };
}

/** A `StateReader` of `base` with `layers` (oldest first) applied on top. */
export class BranchState implements StateReader {
  constructor(
    private readonly base: StateReader,
    private readonly layers: readonly BranchLayer[],
  ) {}

  getAccount(address: Uint8Array): AccountState | undefined {
    return this.getAccountByKey(keyOf(address), address);
  }

  getAccountByKey(key: string, address: Uint8Array): AccountState | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const hit = this.layers[i].accounts.get(key);
      if (hit !== undefined) return hit ?? undefined;
    }
    return this.base.getAccountByKey ? this.base.getAccountByKey(key, address) : this.base.getAccount(address);
  }

  getStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const key = keyOf(address);
    const slotKey = keyOf(slot);
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const c = this.layers[i].changes;
      const value = c.storage.get(key)?.get(slotKey);
      if (value !== undefined) return value;
      // A wiped storage (deletion, re-creation) hides every older value; a deleted account has none either.
      if (c.storageCleared.has(key) || c.accounts.get(key) === null) return EMPTY;
    }
    return this.base.getStorage(address, slot);
  }

  getCode(codeHash: Uint8Array): Uint8Array | undefined {
    const key = keyOf(codeHash);
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const code = this.layers[i].changes.code.get(key);
      if (code !== undefined) return code;
    }
    return this.base.getCode(codeHash);
  }
}
