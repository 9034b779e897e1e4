/** The RPC's StateView: account state after a block, from the store's state tables and change sets (read-only). */
import { hexToBytes, padLeft } from '../primitives/hex.ts';
import { keccak256 } from '../primitives/keccak.ts';
import type { AccountProof, StateView } from '../rpc/interface.ts';
import type { HeaderData } from '../rpc/encode/types.ts';
import { EMPTY_ACCOUNT } from '../state/account.ts';
import { HistoricalState } from '../state/store/history.ts';
import { SqliteNodeStore } from '../state/store/sqliteNodeStore.ts';
import type { ChainReader } from '../store/index.ts';
import { SecureTrie } from '../trie/index.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import { bytesToBigInt } from '../primitives/hex.ts';

const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));
const EMPTY_ROOT = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');

export class StoreStateView implements StateView {
  constructor(private readonly reader: ChainReader) {}

  private at(header: HeaderData): HistoricalState {
    return new HistoricalState(this.reader.db, Number(header.number));
  }

  getBalance(address: Uint8Array, at: HeaderData): bigint {
    return this.at(at).getAccount(address)?.balance ?? 0n;
  }

  getNonce(address: Uint8Array, at: HeaderData): bigint {
    return this.at(at).getAccount(address)?.nonce ?? 0n;
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

  /** Proofs come from the persisted trie nodes of the block's state root (EIP-1186). */
  getProof(address: Uint8Array, slots: Uint8Array[], at: HeaderData): AccountProof {
    const nodes = new SqliteNodeStore(this.reader.db);
    const accountTrie = new SecureTrie(nodes, at.stateRoot);
    const account = this.at(at).getAccount(address) ?? EMPTY_ACCOUNT;
    const storageRoot = account.storageRoot ?? EMPTY_ROOT;
    const storageTrie = new SecureTrie(nodes, storageRoot);
    return {
      address,
      accountProof: accountTrie.createProof(address),
      balance: account.balance,
      codeHash: account.codeHash ?? EMPTY_CODE_HASH,
      nonce: account.nonce,
      storageHash: storageRoot,
      storageProof: slots.map((key) => {
        const raw = storageTrie.get(padLeft(key, 32));
        const value = raw ? bytesToBigInt(decodeRlp(raw) as Uint8Array) : 0n;
        return { key, value, proof: storageTrie.createProof(padLeft(key, 32)) };
      }),
    };
  }
}
