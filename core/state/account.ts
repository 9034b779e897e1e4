/**
 * The account record of Ethereum's world state: `[nonce, balance, storageRoot, codeHash]`, RLP-encoded as the leaf
 * value of the secure account trie (Yellow Paper §4.1).
 */
import { KECCAK_EMPTY } from '../primitives/keccak.ts';
import { EMPTY_TRIE_ROOT } from '../trie/node.ts';
import { encodeAccountLeaf } from '../trie/stateLeaves.ts';
import { decodeRlp, expectBytes, expectList, expectUint } from '../primitives/rlp.ts';
import { equalBytes } from '../primitives/hex.ts';

/** Root of the empty Merkle-Patricia trie (the trie's own constant). */
export { EMPTY_TRIE_ROOT };

/** One account as the state holds it. Immutable by convention: writers replace the object, never mutate it. */
export interface AccountState {
  readonly nonce: bigint;
  readonly balance: bigint;
  /** Root of the account's storage trie (EMPTY_TRIE_ROOT when it has no storage). */
  readonly storageRoot: Uint8Array;
  /** keccak256 of the code (KECCAK_EMPTY for an externally owned account). */
  readonly codeHash: Uint8Array;
}

/** The account that "does not exist": what reads of an absent address behave like. */
export const EMPTY_ACCOUNT: AccountState = Object.freeze({
  nonce: 0n,
  balance: 0n,
  storageRoot: EMPTY_TRIE_ROOT,
  codeHash: KECCAK_EMPTY,
});

/** EIP-161 emptiness: no nonce, no balance, no code. */
export function isEmptyAccount(account: AccountState): boolean {
  return account.nonce === 0n && account.balance === 0n && equalBytes(account.codeHash, KECCAK_EMPTY);
}

/** True when the account holds code. */
export function hasCode(account: AccountState): boolean {
  return !equalBytes(account.codeHash, KECCAK_EMPTY);
}

/** RLP of the account as stored in the state trie (the trie's leaf rule). */
export const encodeAccount: (account: AccountState) => Uint8Array = encodeAccountLeaf;

/** Inverse of `encodeAccount`; throws an RlpError naming the field on malformed input. */
export function decodeAccount(bytes: Uint8Array): AccountState {
  const fields = expectList(decodeRlp(bytes), 'account', 4);
  return {
    nonce: expectUint(fields[0] as Uint8Array, 'account.nonce', 8),
    balance: expectUint(fields[1] as Uint8Array, 'account.balance'),
    storageRoot: expectBytes(fields[2] as Uint8Array, 'account.storageRoot', 32),
    codeHash: expectBytes(fields[3] as Uint8Array, 'account.codeHash', 32),
  };
}
