/**
 * Dev-only state edits (anvil_setBalance / setNonce / setCode / setStorageAt and their hardhat_ aliases), applied to a
 * block's working state before its transactions. The dev producer seals each batch of edits into a block of its own
 * at once (docs/decisions/0023-dev-state-edits.md): the new values are in the head state, under a state root the
 * block's signer vouches for, the moment the RPC call returns; evm_revert unwinds them like any other block.
 */
import { EMPTY_ACCOUNT, EMPTY_TRIE_ROOT, isEmptyAccount } from '../state/account.ts';
import { equalBytes } from '../primitives/hex.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { trimStorageValue } from '../state/keys.ts';
import type { DevStateEdit } from '../rpc/interface.ts';

export type { DevStateEdit };

/** Applies `edits` in order to `state` (the block's overlay); fields left out keep their values. */
export function applyDevEdits(state: JournaledState, edits: readonly DevStateEdit[]): void {
  for (const edit of edits) {
    // Storage needs an account to hang from (anvil creates one too).
    if (edit.storage?.length && state.getAccount(edit.address) === undefined) state.putAccount(edit.address, EMPTY_ACCOUNT);
    if (edit.code !== undefined) state.putCode(edit.address, edit.code);
    for (const [slot, value] of edit.storage ?? []) state.putStorage(edit.address, slot, trimStorageValue(value));
    if (edit.balance === undefined && edit.nonce === undefined) continue;
    const before = state.getAccount(edit.address);
    const account = before ?? EMPTY_ACCOUNT;
    const next = {
      ...account,
      ...(edit.balance !== undefined ? { balance: edit.balance } : {}),
      ...(edit.nonce !== undefined ? { nonce: edit.nonce } : {}),
    };
    // EIP-161: an account edited down to nothing (no nonce, balance, code or storage) leaves the state, as it would
    // once touched by a transaction; keeping an empty account would give a state root no transaction could produce.
    const storageless = equalBytes(account.storageRoot, EMPTY_TRIE_ROOT) && (edit.storage?.length ?? 0) === 0;
    if (!isEmptyAccount(next) || !storageless) state.putAccount(edit.address, next);
    else if (before !== undefined) state.putAccount(edit.address, null);
  }
}
