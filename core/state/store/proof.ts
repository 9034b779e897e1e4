/**
 * eth_getProof from the stored trie nodes: the account proof at the state root of a block, and storage proofs in
 * the account's storage trie. Nodes are content-addressed and never deleted, so any block whose root is recorded
 * in `state_roots` can be proven (EIP-1186); a block whose nodes were not kept is rebuilt first (`trieAt.ts`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { bytesToBigInt, padLeft } from '../../primitives/hex.ts';
import { decodeRlp, expectBytes } from '../../primitives/rlp.ts';
import { SecureTrie, type TrieNodeStore } from '../../trie/index.ts';
import { decodeAccount, EMPTY_ACCOUNT } from '../account.ts';
import { StateError } from '../errors.ts';
import { stateRootAt } from './history.ts';
import { trieAtBlock } from './trieAt.ts';

/** One storage proof. */
export interface StorageProof {
  /** The 32-byte slot. */
  key: Uint8Array;
  value: bigint;
  proof: Uint8Array[];
}

/** EIP-1186 result, with byte and bigint fields (the RPC layer formats them). */
export interface AccountProof {
  address: Uint8Array;
  accountProof: Uint8Array[];
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storageHash: Uint8Array;
  storageProof: StorageProof[];
}

/** Read-only view of `trie_nodes` (works on the RPC's read-only connection). */
class ReadOnlyNodeStore implements TrieNodeStore {
  private readonly select: BetterSqlite3.Statement<[Uint8Array], { node: Uint8Array }>;
  constructor(db: BetterSqlite3.Database) {
    this.select = db.prepare('SELECT node FROM trie_nodes WHERE hash = ?');
  }
  getNode(hash: Uint8Array): Uint8Array | undefined {
    const row = this.select.get(hash);
    return row === undefined ? undefined : new Uint8Array(row.node);
  }
  putNodes(): void {
    throw new StateError('STATE_CORRUPT', 'proof node store is read-only');
  }
}

/** Proof of `address` and its `slots` in the state after block `number`. */
export function getProof(handle: SqlHandle, number: number, address: Uint8Array, slots: readonly Uint8Array[]): AccountProof {
  const db = connectionOf(handle);
  const root = stateRootAt(db, number);
  if (root === undefined)
    throw new StateError('STATE_UNAVAILABLE', `state at block ${number} is not available (pruned or not yet imported)`, { number });
  // A block inside a follower's batch kept no nodes of its own (decision 0025): rebuilt from a later stored root.
  const { nodes } = trieAtBlock(db, new ReadOnlyNodeStore(db), number, root);
  const accounts = new SecureTrie(nodes, root);
  const leaf = accounts.get(address);
  const account = leaf === undefined ? EMPTY_ACCOUNT : decodeAccount(leaf);
  const storage = new SecureTrie(nodes, account.storageRoot);
  return {
    address,
    accountProof: accounts.createProof(address),
    nonce: account.nonce,
    balance: account.balance,
    codeHash: account.codeHash,
    storageHash: account.storageRoot,
    storageProof: slots.map((s) => {
      const key = padLeft(s, 32);
      const raw = storage.get(key);
      return {
        key,
        value: raw === undefined ? 0n : bytesToBigInt(expectBytes(decodeRlp(raw), 'storage value')),
        proof: storage.createProof(key),
      };
    }),
  };
}
