/**
 * geth's StateOverride applied to a call's working state (eth_call, debug_traceCall): balance, nonce, code, and either
 * `state` (the whole storage replaced) or `stateDiff` (slots patched). Keys are 0x-prefixed hex addresses and slots.
 */
import { EMPTY_ACCOUNT } from '../../state/account.ts';
import type { JournaledState } from '../../state/journaledState.ts';
import { trimStorageValue } from '../../state/keys.ts';
import { toChecksumAddress } from '../../primitives/address.ts';
import { hexToBytes } from '../../primitives/hex.ts';
import { REMOVED_PRECOMPILE } from '../evmHost.ts';
import { CallError } from './types.ts';

export type StateOverrideSet = ReadonlyMap<
  string,
  {
    balance?: bigint;
    nonce?: bigint;
    code?: Uint8Array;
    state?: ReadonlyMap<string, Uint8Array>;
    stateDiff?: ReadonlyMap<string, Uint8Array>;
    /** movePrecompileToAddress (0x hex): the precompile at this address runs there instead (eth_call and friends). */
    movePrecompileTo?: string;
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
 * A call's precompile table changes, as `EvmHost`'s precompileMoves, following geth's StateOverride.Apply: a
 * precompile whose address an override names (any field) is removed, so the override's code, or none, runs there;
 * movePrecompileToAddress runs it at the new address instead. eth_call, eth_estimateGas, eth_createAccessList and
 * debug_traceCall agree with eth_simulateV1 on this (which checks its own moves with the spec's codes).
 */
export function overriddenPrecompiles(overrides: StateOverrideSet | undefined, active: ReadonlySet<string>): ReadonlyMap<string, string> {
  const moves = new Map<string, string>();
  for (const [addr, o] of overrides ?? []) {
    const key = addr.replace(/^0x/, '').toLowerCase();
    if (o.movePrecompileTo !== undefined) {
      if (!active.has(key)) throw new CallError('CALL_INVALID', `account ${toChecksumAddress(hexToBytes(addr))} is not a precompile`);
      const to = o.movePrecompileTo.replace(/^0x/, '').toLowerCase();
      if ([...(overrides?.keys() ?? [])].some((k) => k.replace(/^0x/, '').toLowerCase() === to))
        throw new CallError('CALL_INVALID', `account ${toChecksumAddress(hexToBytes(o.movePrecompileTo))} is already overridden`);
      moves.set(key, to);
    } else if (active.has(key)) moves.set(key, REMOVED_PRECOMPILE);
  }
  return moves;
}
