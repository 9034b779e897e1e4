/**
 * Balance credits with EIP-161's touch rule (an account touched and left empty is removed from SpuriousDragon on),
 * shared by the fee settlement, withdrawals and the vector runners.
 */
import { isForkActive } from '../chain/forks.ts';
import { EMPTY_ACCOUNT, isEmptyAccount, type AccountState } from '../state/account.ts';
import type { JournaledState } from '../state/journaledState.ts';
import type { BlockEnv } from './types.ts';

/** Credits `amount` to `address`; a touched account that stays empty is deleted (or never created). */
export function credit(state: JournaledState, env: Pick<BlockEnv, 'fork'>, address: Uint8Array, amount: bigint): void {
  const account = state.getAccount(address);
  const next: AccountState = { ...(account ?? EMPTY_ACCOUNT), balance: (account?.balance ?? 0n) + amount };
  if (isForkActive(env.fork, 'SpuriousDragon') && isEmptyAccount(next)) {
    if (account !== undefined) state.putAccount(address, null);
    return;
  }
  state.putAccount(address, next);
}

/** `credit` for a caller that already holds the address's map key (`keyOf(address)`): the transfer fast path. */
export function creditByKey(state: JournaledState, env: Pick<BlockEnv, 'fork'>, key: string, address: Uint8Array, amount: bigint): void {
  const account = state.accountByKey(key, address);
  if (amount === 0n || account === null) {
    credit(state, env, address, amount);
    return;
  }
  state.setAccountByKey(key, { ...account, balance: account.balance + amount });
}

/** Touches the coinbase with a zero credit (geth's state-test runner does this after every transaction). */
export function creditZero(state: JournaledState, env: Pick<BlockEnv, 'fork' | 'coinbase'>): void {
  credit(state, env, env.coinbase, 0n);
}
