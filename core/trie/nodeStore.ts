/**
 * Where trie nodes live, keyed by their keccak256 hash. The interface is synchronous because both implementations
 * are: a Map here, and better-sqlite3 in the state store (which backs the state trie in the chain thread).
 */
import { bytesToHex } from '../primitives/hex.ts';

/** One node to persist: its hash and RLP encoding. */
export interface TrieNodeWrite {
  hash: Uint8Array;
  encoded: Uint8Array;
}

/** Content-addressed node storage the trie reads through and commits into. */
export interface TrieNodeStore {
  /** The encoding of the node with this hash, or undefined when it is not stored. */
  getNode(hash: Uint8Array): Uint8Array | undefined;
  /** Stores nodes (idempotent: a hash always names the same bytes). */
  putNodes(nodes: readonly TrieNodeWrite[]): void;
  /**
   * True when `getNode` only returns bytes whose keccak256 is the hash asked for (the store checked what it read from
   * disk and keeps nothing else): the trie then skips its own check, a keccak per node loaded.
   */
  readonly verifiesNodes?: boolean;
}

/** In-memory node store for tests, proofs, ordered roots and genesis building. */
export class MemoryNodeStore implements TrieNodeStore {
  readonly #nodes = new Map<string, Uint8Array>();

  getNode(hash: Uint8Array): Uint8Array | undefined {
    return this.#nodes.get(bytesToHex(hash));
  }

  putNodes(nodes: readonly TrieNodeWrite[]): void {
    for (const n of nodes) this.#nodes.set(bytesToHex(n.hash), n.encoded);
  }

  /** Number of stored nodes. */
  get size(): number {
    return this.#nodes.size;
  }
}
