/**
 * What Ethereum's state trie holds at its leaves (Yellow Paper §4.1): an account is RLP([nonce, balance, storageRoot,
 * codeHash]); a storage slot is RLP(its value as a minimal big-endian integer), and a zero slot is no leaf at all.
 * The genesis state root (chain/) and the state layer (state/) both write these leaves, so the rule lives here,
 * below both.
 */
import { bigIntToBytes } from '../primitives/hex.ts';
import { encodeRlp, writeRlpString, rlpStringLength } from '../primitives/rlp.ts';

/** The four fields of an account leaf. */
export interface AccountLeaf {
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly storageRoot: Uint8Array;
  readonly codeHash: Uint8Array;
}

/** RLP of the account as the state trie stores it. */
export function encodeAccountLeaf(account: AccountLeaf): Uint8Array {
  return encodeRlp([bigIntToBytes(account.nonce), bigIntToBytes(account.balance), account.storageRoot, account.codeHash]);
}

/**
 * The storage leaf of a slot whose value is `value` (minimal big-endian, at most 32 bytes): its RLP, or the empty
 * value (which the trie takes as a delete) for a zero slot.
 */
export function encodeStorageLeaf(value: Uint8Array): Uint8Array {
  if (value.length === 0) return value;
  if (value.length > 32) throw new RangeError(`storage value of ${value.length} bytes (at most 32)`);
  const out = new Uint8Array(rlpStringLength(value.length, value[0]));
  writeRlpString(out, 0, value);
  return out;
}
