/**
 * EIP-4895 withdrawals (Shanghai): validator withdrawals credited to an address, amount in gwei. A block body's
 * fourth list and the withdrawals trie hold RLP([index, validatorIndex, address, amount]).
 */
import { bigIntToBytes } from '../primitives/hex.ts';
import { encodeRlp, expectBytes, expectList, expectUint, type RlpInput, type RlpItem } from '../primitives/rlp.ts';
import { orderedTrieRoot } from '../trie/orderedTrieRoot.ts';

export interface Withdrawal {
  /** Monotonic withdrawal index (uint64). */
  index: bigint;
  /** Validator index (uint64). */
  validatorIndex: bigint;
  /** 20 bytes: the credited account. */
  address: Uint8Array;
  /** Amount in gwei (uint64); the state credits amount * 1e9 wei. */
  amount: bigint;
}

/** The RLP list of a withdrawal. */
export function withdrawalFields(w: Withdrawal): RlpInput {
  return [bigIntToBytes(w.index), bigIntToBytes(w.validatorIndex), w.address, bigIntToBytes(w.amount)];
}

/** Decodes one withdrawal; errors name `what` and the field (e.g. `block.withdrawals[3].address`). */
export function decodeWithdrawal(item: RlpItem, what = 'withdrawal'): Withdrawal {
  const f = expectList(item, what, 4);
  return {
    index: expectUint(f[0], `${what}.index`, 8),
    validatorIndex: expectUint(f[1], `${what}.validatorIndex`, 8),
    address: expectBytes(f[2], `${what}.address`, 20).slice(),
    amount: expectUint(f[3], `${what}.amount`, 8),
  };
}

/** The withdrawals root of a block header. */
export function withdrawalsRoot(withdrawals: readonly Withdrawal[]): Uint8Array {
  return orderedTrieRoot(withdrawals.map((w) => encodeRlp(withdrawalFields(w))));
}
