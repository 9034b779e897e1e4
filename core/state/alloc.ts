/**
 * Loading a genesis allocation (genesis.json `alloc`, a test vector's `pre`) into a state backend and computing its
 * root. Shared by genesis initialisation, `xone statetest` and `xone blocktest`.
 */
import { EMPTY_ACCOUNT } from './account.ts';
import type { StateBackend } from './backend.ts';
import { JournaledState } from './journaledState.ts';
import { trimStorageValue } from './keys.ts';
import { padLeft } from '../primitives/hex.ts';
import { StateRootComputer } from './stateRoot.ts';

/** One pre-allocated account. */
export interface AllocAccount {
  balance: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Slot (32 bytes) → value (any length; trimmed). */
  storage?: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
}

/** Writes `alloc` into `backend` (assumed empty) and returns the state root, committing its trie nodes. */
export function applyAlloc(
  backend: StateBackend,
  alloc: ReadonlyMap<Uint8Array, AllocAccount> | Iterable<readonly [Uint8Array, AllocAccount]>,
): Uint8Array {
  const state = new JournaledState(backend);
  for (const [address, entry] of alloc) {
    state.putAccount(address, { ...EMPTY_ACCOUNT, balance: entry.balance, nonce: entry.nonce ?? 0n });
    if (entry.code !== undefined && entry.code.length > 0) state.putCode(address, entry.code);
    for (const [slot, value] of entry.storage ?? []) {
      const v = trimStorageValue(value);
      if (v.length > 0) state.putStorage(address, padLeft(slot, 32), v);
    }
  }
  const changes = state.changes();
  const computer = new StateRootComputer(backend.nodes);
  const { root, storageRoots } = computer.apply(changes, (key) => state.accountByKey(key));
  backend.applyChanges(changes, storageRoots);
  return root;
}
