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
 * The refusals a method raises for movePrecompileToAddress, each given the address at fault (0x lower-case hex); a
 * refusal left out is a check the method does not make.
 */
export interface PrecompileMoveErrors {
  /** A move of an address that holds no precompile (checked for every move before any other check, as geth). */
  notPrecompile(address: string): Error;
  /** A move onto the precompile's own address (eth_simulateV1's -38022). */
  toItself?(address: string): Error;
  /** A move onto an address an override names, the precompile's own included (geth's StateOverride.Apply). */
  targetOverridden?(address: string): Error;
}

const plain = (addr: string): string => addr.replace(/^0x/, '').toLowerCase();

/**
 * A call's precompile table changes, as `EvmHost`'s precompileMoves (unprefixed hex: old -> new, or
 * REMOVED_PRECOMPILE), following geth's StateOverride.Apply: a precompile whose address an override names (any
 * field) is removed, so the override's code, or none, runs there; movePrecompileToAddress runs it at the new address
 * instead. One rule for eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall and eth_simulateV1; each
 * names the refusals with its own codes and texts.
 */
export function precompileMoves(
  overrides: StateOverrideSet | undefined,
  active: ReadonlySet<string>,
  errors: PrecompileMoveErrors,
): Map<string, string> {
  const moves = new Map<string, string>();
  if (overrides === undefined) return moves;
  for (const [addr, o] of overrides)
    if (o.movePrecompileTo !== undefined && !active.has(plain(addr))) throw errors.notPrecompile(`0x${plain(addr)}`);
  const named = new Set([...overrides.keys()].map(plain));
  for (const [addr, o] of overrides) {
    const from = plain(addr);
    if (o.movePrecompileTo === undefined) {
      if (active.has(from) && !moves.has(from)) moves.set(from, REMOVED_PRECOMPILE);
      continue;
    }
    const to = plain(o.movePrecompileTo);
    const shown = `0x${to}`;
    if (to === from && errors.toItself) throw errors.toItself(shown);
    if (named.has(to) && errors.targetOverridden) throw errors.targetOverridden(shown);
    moves.set(from, to);
  }
  return moves;
}

/** geth's -32000 texts for eth_call and friends (StateOverride.Apply). */
export const CALL_MOVE_ERRORS: PrecompileMoveErrors = {
  notPrecompile: (a) => new CallError('CALL_INVALID', `account ${toChecksumAddress(hexToBytes(a))} is not a precompile`),
  targetOverridden: (a) => new CallError('CALL_INVALID', `account ${toChecksumAddress(hexToBytes(a))} is already overridden`),
};
