/**
 * A Merkle-Patricia trie (Yellow Paper appendix D) over a pluggable node store. Changes stay in memory as
 * copy-on-write nodes; `commit()` hashes only the dirty paths and writes their nodes to the store in one batch.
 * Reopening at a committed root reads nodes lazily, so a large state never has to fit in memory.
 */
import { keccak256 } from '../primitives/keccak.ts';
import { TrieError } from './errors.ts';
import { walkEntries } from './iterate.ts';
import { deleteNode, insertNode, type Resolve } from './mutate.ts';
import { bytesToNibbles, nibblesToBytes } from './nibbles.ts';
import { decodeNode, EMPTY_TRIE_ROOT, hashRef, rootHashOf, type HashNode, type TrieNode } from './node.ts';
import { MemoryNodeStore, type TrieNodeStore, type TrieNodeWrite } from './nodeStore.ts';
import { proofAlongPath } from './proof.ts';
import { equalBytes } from '../primitives/hex.ts';

/** A key/value pair in key order. */
export interface TrieEntry {
  key: Uint8Array;
  value: Uint8Array;
}

/** Plain (unhashed-key) trie: transactions/receipts tries, storage of tests, and the base of `SecureTrie`. */
export class Trie {
  readonly store: TrieNodeStore;
  #root: TrieNode | undefined;
  /** Hashed nodes produced since the last commit, written by the next `commit()`. */
  #pending: TrieNodeWrite[] = [];
  readonly #resolve: Resolve;

  /** Opens the trie at `root` (a committed root hash in `store`); the empty root or none gives an empty trie. */
  constructor(store: TrieNodeStore = new MemoryNodeStore(), root?: Uint8Array) {
    this.store = store;
    this.#resolve = (node) => (node.kind === 'hash' ? (node.resolved ??= this.#load(node)) : node);
    this.#root = root && !equalBytes(root, EMPTY_TRIE_ROOT) ? ({ kind: 'hash', hash: root, ref: hashRef(root) } as HashNode) : undefined;
  }

  #load(node: HashNode): Exclude<TrieNode, HashNode> {
    const encoded = this.store.getNode(node.hash);
    if (!encoded)
      throw new TrieError('TRIE_MISSING_NODE', `trie: node ${Buffer.from(node.hash).toString('hex')} is missing from the node store`, {
        hash: node.hash,
      });
    if (!equalBytes(keccak256(encoded), node.hash)) throw new TrieError('TRIE_BAD_NODE', 'trie: stored node does not match its hash');
    return decodeNode(encoded, node.hash) as Exclude<TrieNode, HashNode>;
  }

  /** The value stored under `key`, or undefined. */
  get(key: Uint8Array): Uint8Array | undefined {
    let node = this.#root;
    const path = bytesToNibbles(key);
    let pos = 0;
    while (node) {
      const n = this.#resolve(node);
      if (n.kind === 'leaf') {
        if (n.path.length !== path.length - pos) return undefined;
        for (let i = 0; i < n.path.length; i++) if (n.path[i] !== path[pos + i]) return undefined;
        return n.value;
      }
      if (n.kind === 'ext') {
        if (n.path.length > path.length - pos) return undefined;
        for (let i = 0; i < n.path.length; i++) if (n.path[i] !== path[pos + i]) return undefined;
        pos += n.path.length;
        node = n.child;
        continue;
      }
      if (pos === path.length) return n.value;
      node = n.children[path[pos++]];
    }
    return undefined;
  }

  /** Sets `key` to `value`; an empty value deletes the key (as in geth and the ethereum/tests vectors). */
  put(key: Uint8Array, value: Uint8Array): void {
    if (value.length === 0) {
      this.delete(key);
      return;
    }
    this.#root = insertNode(this.#root, bytesToNibbles(key), value, this.#resolve);
  }

  /** Removes `key` (no-op when absent). */
  delete(key: Uint8Array): void {
    this.#root = deleteNode(this.#root, bytesToNibbles(key), this.#resolve);
  }

  /** The current root hash; hashes dirty nodes and queues them for the next `commit`. */
  root(): Uint8Array {
    return rootHashOf(this.#root, (hash, encoded) => this.#pending.push({ hash, encoded }));
  }

  /**
   * Writes every node hashed since the last commit to the store and returns the root hash. With `unload`, the trie
   * then forgets its in-memory nodes and reads them back from the store on demand (bounded memory for big states).
   */
  commit({ unload = false }: { unload?: boolean } = {}): Uint8Array {
    const root = this.root();
    if (this.#pending.length > 0) {
      this.store.putNodes(this.#pending);
      this.#pending = [];
    }
    if (unload && this.#root) this.#root = { kind: 'hash', hash: root, ref: hashRef(root) };
    return root;
  }

  /** The Merkle proof of `key` (present or absent) for eth_getProof: the hashed nodes along its path, root first. */
  createProof(key: Uint8Array): Uint8Array[] {
    this.root();
    return proofAlongPath(this.#root, bytesToNibbles(key), this.#resolve);
  }

  /** Entries in ascending key order, starting at `from` (inclusive) when given. */
  *entries(from?: Uint8Array): Generator<TrieEntry> {
    for (const e of walkEntries(this.#root, this.#resolve, from && bytesToNibbles(from)))
      yield { key: nibblesToBytes(e.path), value: e.value };
  }

  /** Entries in descending key order, starting at `from` (inclusive) when given. */
  *entriesReverse(from?: Uint8Array): Generator<TrieEntry> {
    for (const e of walkEntries(this.#root, this.#resolve, from && bytesToNibbles(from), true))
      yield { key: nibblesToBytes(e.path), value: e.value };
  }

  /** The first entry with a key strictly greater than `key`. */
  next(key: Uint8Array): TrieEntry | undefined {
    for (const e of this.entries(key)) if (!equalBytes(e.key, key)) return e;
    return undefined;
  }

  /** The last entry with a key strictly smaller than `key`. */
  prev(key: Uint8Array): TrieEntry | undefined {
    for (const e of this.entriesReverse(key)) if (!equalBytes(e.key, key)) return e;
    return undefined;
  }
}
