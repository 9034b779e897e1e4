/**
 * Merkle proofs (as eth_getProof returns them, EIP-1186): the RLP of every node on a key's path that its parent
 * references by hash, root first. Inline nodes travel inside their parent. A proof shows presence with the value, or
 * absence by ending at a node where the path cannot continue.
 */
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { TrieError } from './errors.ts';
import type { Resolve } from './mutate.ts';
import { bytesToNibbles } from './nibbles.ts';
import { decodeNode, EMPTY_TRIE_ROOT, encodeNode, hashRef, type TrieNode } from './node.ts';

/** Collects the proof nodes along `path` (references must already be computed). */
export function proofAlongPath(root: TrieNode | undefined, path: Uint8Array, resolve: Resolve): Uint8Array[] {
  const out: Uint8Array[] = [];
  let node = root;
  let pos = 0;
  let first = true;
  while (node) {
    const n = resolve(node);
    const encoded = encodeNode(n);
    if (first || encoded.length >= 32) out.push(encoded);
    first = false;
    if (n.kind === 'leaf') break;
    if (n.kind === 'ext') {
      if (!startsWith(path, pos, n.path)) break;
      pos += n.path.length;
      node = n.child;
    } else {
      if (pos === path.length) break;
      node = n.children[path[pos++]];
    }
  }
  return out;
}

function startsWith(path: Uint8Array, pos: number, seg: Uint8Array): boolean {
  if (seg.length > path.length - pos) return false;
  for (let i = 0; i < seg.length; i++) if (path[pos + i] !== seg[i]) return false;
  return true;
}

/**
 * Checks `proof` against `root` for `key`: returns the value, or undefined when the proof shows the key is absent.
 * Throws TRIE_BAD_PROOF when a needed node is missing from the proof or the proof is malformed.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, proof: readonly Uint8Array[]): Uint8Array | undefined {
  // The empty trie proves every key absent with an empty proof.
  if (equalBytes(root, EMPTY_TRIE_ROOT)) return undefined;
  const byHash = new Map<string, Uint8Array>();
  for (const p of proof) byHash.set(bytesToHex(keccak256(p)), p);
  const resolve: Resolve = (node) => {
    if (node.kind !== 'hash') return node;
    const encoded = byHash.get(bytesToHex(node.hash));
    if (!encoded) throw new TrieError('TRIE_BAD_PROOF', `trie: proof lacks node ${bytesToHex(node.hash)}`, { hash: bytesToHex(node.hash) });
    try {
      return decodeNode(encoded, node.hash) as Exclude<TrieNode, { kind: 'hash' }>;
    } catch (err) {
      throw new TrieError('TRIE_BAD_PROOF', `trie: proof node ${bytesToHex(node.hash)} is malformed: ${(err as Error).message}`);
    }
  };
  const path = bytesToNibbles(key);
  let node: TrieNode | undefined = { kind: 'hash', hash: root, ref: hashRef(root) };
  let pos = 0;
  while (node) {
    const n = resolve(node);
    if (n.kind === 'leaf') return startsWith(path, pos, n.path) && n.path.length === path.length - pos ? n.value : undefined;
    if (n.kind === 'ext') {
      if (!startsWith(path, pos, n.path)) return undefined;
      pos += n.path.length;
      node = n.child;
    } else {
      if (pos === path.length) return n.value;
      node = n.children[path[pos++]];
    }
  }
  return undefined;
}
