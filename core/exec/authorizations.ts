/**
 * EIP-7702 authorizations, applied after the sender's nonce moved and before the call: each valid one sets the
 * authority's code to the delegation designator 0xef0100 || address (or clears it for the zero address) and bumps the
 * authority's nonce. An invalid one (wrong chain, nonce overflow or mismatch, bad signature, authority with real
 * code) is skipped; the transaction stays valid. https://eips.ethereum.org/EIPS/eip-7702
 */
import { PER_AUTH_EXISTING_REFUND, recoverAuthority, type Authorization } from '../chain/transaction/index.ts';
import { concatBytes, equalBytes } from '../primitives/hex.ts';
import { EMPTY_ACCOUNT } from '../state/account.ts';
import type { JournaledState } from '../state/journaledState.ts';
import { keyOf } from '../state/keys.ts';
import type { EvmHost } from './evmHost.ts';
import type { BlockEnv } from './types.ts';

/** The designator prefix: code starting with these bytes delegates to the 20-byte address after them. */
export const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const MAX_NONCE = (1n << 64n) - 1n;
const ZERO_ADDRESS = new Uint8Array(20);

/** Whether `code` is exactly a delegation designator. */
export function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** Applies `list` to `state`; returns the gas refund for authorities that already existed (12500 each). */
export function applyAuthorizations(host: EvmHost, state: JournaledState, env: BlockEnv, list: readonly Authorization[]): bigint {
  let refund = 0n;
  for (const auth of list) {
    if (auth.chainId !== 0n && auth.chainId !== env.chainId) continue;
    if (auth.nonce >= MAX_NONCE) continue;
    const authority = recoverAuthority(auth);
    if (authority === undefined) continue;
    // Warm even when the authorization turns out invalid below (as geth does).
    host.evm.journal.addAlwaysWarmAddress(keyOf(authority));
    const account = state.getAccount(authority);
    const code = state.getCode(authority);
    if (code.length !== 0 && !isDelegation(code)) continue;
    if ((account?.nonce ?? 0n) !== auth.nonce) continue;
    if (account !== undefined) refund += PER_AUTH_EXISTING_REFUND;
    state.putAccount(authority, { ...(account ?? EMPTY_ACCOUNT), nonce: auth.nonce + 1n });
    state.putCode(authority, equalBytes(auth.address, ZERO_ADDRESS) ? new Uint8Array(0) : concatBytes(DELEGATION_PREFIX, auth.address));
  }
  return refund;
}
