/**
 * geth's StateOverride applied to a call's working state (eth_call, debug_traceCall): balance, nonce, code, and either
 * `state` (the whole storage replaced) or `stateDiff` (slots patched). Keys are 0x-prefixed hex addresses and slots.
 */
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { trimStorageValue } from '../../state/keys.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import { REMOVED_PRECOMPILE } from '../evmHost.ts';

export type StateOverrideSet = ReadonlyMap<
  string,
  {
    balance?: bigint;
    nonce?: bigint;
    code?: Uint8Array;
    state?: ReadonlyMap<string, Uint8Array>;
    stateDiff?: ReadonlyMap<string, Uint8Array>;
  }
>;

export function applyStateOverrides(state: JournaledState, overrides: StateOverrideSet): void {
  for (const [addr, o] of overrides) {
    const address = hexToBytes(addr);
    if (o.code !== undefined) state.putCode(address, o.code);
    if (o.balance !== undefined || o.nonce !== undefined) {
      const a = state.getAccount(address) ?? EMPTY_ACCOUNT;
      state.putAccount(address, {
        ...a,
        ...(o.balance !== undefined ? { balance: o.balance } : {}),
        ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
      });
    }
    if (o.state !== undefined) {
      if (state.getAccount(address) === undefined) state.putAccount(address, EMPTY_ACCOUNT);
      state.clearStorage(address);
    }
    for (const [slot, value] of o.state ?? o.stateDiff ?? []) {
      if (state.getAccount(address) === undefined) state.putAccount(address, EMPTY_ACCOUNT);
      state.putStorage(address, hexToBytes(slot), trimStorageValue(value));
    }
  }
}

/**
 * The precompiles a call loses to its overrides, as `EvmHost`'s precompileMoves: geth removes a precompile from the
 * call's set when an override names its address (any field), so the override's code, or none, runs there. eth_call,
 * eth_estimateGas, eth_createAccessList and debug_traceCall agree with eth_simulateV1 on this.
 */
export function removedPrecompiles(overrides: StateOverrideSet | undefined, active: ReadonlySet<string>): ReadonlyMap<string, string> {
  const removed = new Map<string, string>();
  for (const addr of overrides?.keys() ?? []) {
    const key = addr.replace(/^0x/, '').toLowerCase();
    if (active.has(key)) removed.set(key, REMOVED_PRECOMPILE);
  }
  return removed;
}
