/** The RPC's StateView: account state after a block, from the store's state tables and change sets (read-only). */
import { padLeft } from '../primitives/hex.ts';
import type { AccountFields, AccountProof, MaybePromise, RequestScope, StateView } from '../rpc/interface.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import { EMPTY_ACCOUNT } from '../state/account.ts';
import { HistoricalState } from '../state/store/history.ts';
import { getProof } from '../state/store/proof.ts';
import type { ChainReader } from '../store/index.ts';

export class StoreStateView implements StateView {
  /** Set when eth_getProof runs elsewhere (the node's execution pool). */
  private readonly proofs?: StateView['getProof'];

  constructor(
    private readonly reader: ChainReader,
    offload: { getProof?: StateView['getProof'] } = {},
  ) {
    if (offload.getProof) this.proofs = offload.getProof;
  }

  private at(header: HeaderData): HistoricalState {
    return new HistoricalState(this.reader, Number(header.number));
  }

  getBalance(address: Uint8Array, at: HeaderData): bigint {
    return this.at(at).getAccount(address)?.balance ?? 0n;
  }

  getNonce(address: Uint8Array, at: HeaderData): bigint {
    return this.at(at).getAccount(address)?.nonce ?? 0n;
  }

  getAccount(address: Uint8Array, at: HeaderData): AccountFields {
    const { balance, nonce, codeHash, storageRoot } = this.at(at).getAccount(address) ?? EMPTY_ACCOUNT;
    return { balance, nonce, codeHash, storageRoot };
  }

  getCode(address: Uint8Array, at: HeaderData): Uint8Array {
    const state = this.at(at);
    const account = state.getAccount(address);
    if (!account) return new Uint8Array(0);
    return state.getCode(account.codeHash) ?? new Uint8Array(0);
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array, at: HeaderData): Uint8Array {
    return padLeft(this.at(at).getStorage(address, padLeft(slot, 32)), 32);
  }

  /**
   * EIP-1186 proofs of the state after any kept block, through the state store: a block inside a follower's
   * group-commit batch kept no trie nodes of its own (decision 0025), and the state store rebuilds its trie from a
   * later kept root before proving.
   */
  getProof(address: Uint8Array, slots: Uint8Array[], at: HeaderData, scope?: RequestScope): MaybePromise<AccountProof> {
    if (this.proofs && scope) return this.proofs(address, slots, at, scope);
    return getProof(this.reader, Number(at.number), address, slots);
  }
}
