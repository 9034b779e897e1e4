/** Folds one transaction's overlay into the block's working state (tracing runs each transaction on its own overlay). */
import type { StateChanges } from '../../state/interface.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { bytesOfKey, keyOf } from '../../state/keys.ts';

export function foldChanges(target: JournaledState, changes: StateChanges): void {
  for (const key of changes.storageCleared) target.clearStorage(bytesOfKey(key));
  for (const [key, account] of changes.accounts) {
    const address = bytesOfKey(key);
    const code = account ? changes.code.get(keyOf(account.codeHash)) : undefined;
    if (code !== undefined) target.putCode(address, code);
    target.putAccount(address, account);
  }
  for (const [key, slots] of changes.storage) {
    const address = bytesOfKey(key);
    for (const [slot, value] of slots) target.putStorage(address, bytesOfKey(slot), value);
  }
}
