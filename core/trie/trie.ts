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
  /** Encoded bytes of the nodes decoded or hashed since the last `prune` (what the decoded trie has grown by). */
  #residentBytes = 0;
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
    if (!this.store.verifiesNodes && !equalBytes(keccak256(encoded), node.hash))
      throw new TrieError('TRIE_BAD_NODE', 'trie: stored node does not match its hash');
    this.#residentBytes += encoded.length;
    return decodeNode(encoded, node.hash, node.ref) as Exclude<TrieNode, HashNode>;
  }

  /** Encoded bytes of the nodes decoded or hashed since the trie was opened or last pruned (a memory estimate). */
  get residentBytes(): number {
    return this.#residentBytes;
  }

  /**
   * Forgets the decoded nodes below `keepDepth` levels (the root is level 0): each becomes a hash node again, read
   * from the store when a later change reaches it. Call after `commit` (uncommitted nodes have no hash to fall back
   * to and are kept). A long-lived trie (the head state's) would otherwise keep every path it ever touched decoded.
   */
  prune(keepDepth: number): void {
    const shrink = (node: TrieNode, depth: number): TrieNode => {
      const n = node.kind === 'hash' ? node.resolved : node;
      if (n === undefined) return node;
      const ref = n.ref;
      if (ref === undefined) return node; // not committed: only the decoded node holds it
      if (depth >= keepDepth && ref.length === 33) return { kind: 'hash', hash: ref.subarray(1), ref };
      if (n.kind === 'branch') {
        for (let i = 0; i < 16; i++) {
          const c = n.children[i];
          if (c !== undefined) n.children[i] = shrink(c, depth + 1);
        }
      } else if (n.kind === 'ext') n.child = shrink(n.child, depth + 1);
      return node;
    };
    if (this.#root) this.#root = shrink(this.#root, 0);
    this.#residentBytes = 0;
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
    return rootHashOf(this.#root, (hash, encoded) => {
      this.#pending.push({ hash, encoded });
      this.#residentBytes += encoded.length;
    });
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
