/**
 * The "secure" trie of the state and storage tries: every key is replaced by keccak256(key) before it reaches the
 * trie, which bounds path depth and stops an attacker from building long shared prefixes.
 */
import { keccak256 } from '../primitives/keccak.ts';
import { Trie } from './trie.ts';
import type { TrieNodeStore } from './nodeStore.ts';
import { MemoryNodeStore } from './nodeStore.ts';

/** A trie keyed by keccak256 of the caller's key. Iteration yields hashed keys (preimages are not kept). */
export class SecureTrie {
  readonly trie: Trie;

  constructor(store: TrieNodeStore = new MemoryNodeStore(), root?: Uint8Array) {
    this.trie = new Trie(store, root);
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.trie.get(keccak256(key));
  }

  /** Sets the value; an empty value deletes the key. */
  put(key: Uint8Array, value: Uint8Array): void {
    this.trie.put(keccak256(key), value);
  }

  delete(key: Uint8Array): void {
    this.trie.delete(keccak256(key));
  }

  root(): Uint8Array {
    return this.trie.root();
  }

  /** See `Trie.commit`; `unload` drops in-memory nodes after writing them. */
  commit(options?: { unload?: boolean }): Uint8Array {
    return this.trie.commit(options);
  }

  /** Proof for the unhashed key, verifiable with `verifyProof(root, keccak256(key), proof)`. */
  createProof(key: Uint8Array): Uint8Array[] {
    return this.trie.createProof(keccak256(key));
  }
}
