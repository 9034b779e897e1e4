/**
 * Insert and delete on nibble paths, copy-on-write: every node on the changed path is a fresh object without a cached
 * reference (so it is rehashed at commit), every untouched subtree is shared with its cached reference intact.
 * Deletion restores the canonical shape (a branch with one entry left collapses into its parent path).
 */
import type { BranchNode, HashNode, TrieNode } from './node.ts';
import { commonPrefixLength } from './nibbles.ts';

/** Turns a hash node into the node it names (reading the node store); other nodes pass through. */
export type Resolve = (node: TrieNode) => Exclude<TrieNode, HashNode>;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function emptyBranch(): BranchNode {
  return { kind: 'branch', children: new Array<TrieNode | undefined>(16).fill(undefined), value: undefined };
}

/** Puts `(path, value)` under a fresh branch at the split point. */
function placeInBranch(branch: BranchNode, path: Uint8Array, make: (rest: Uint8Array) => TrieNode, value?: Uint8Array): void {
  if (path.length === 0) branch.value = value;
  else branch.children[path[0]] = make(path.subarray(1));
}

/** Returns the subtree with `path` set to `value` (non-empty). */
export function insertNode(node: TrieNode | undefined, path: Uint8Array, value: Uint8Array, resolve: Resolve): TrieNode {
  if (!node) return { kind: 'leaf', path, value };
  const n = resolve(node);
  switch (n.kind) {
    case 'leaf': {
      const cp = commonPrefixLength(n.path, path);
      if (cp === n.path.length && cp === path.length) return { kind: 'leaf', path, value };
      const branch = emptyBranch();
      placeInBranch(branch, n.path.subarray(cp), (rest) => ({ kind: 'leaf', path: rest, value: n.value }), n.value);
      placeInBranch(branch, path.subarray(cp), (rest) => ({ kind: 'leaf', path: rest, value }), value);
      return cp > 0 ? { kind: 'ext', path: path.subarray(0, cp), child: branch } : branch;
    }
    case 'ext': {
      const cp = commonPrefixLength(n.path, path);
      if (cp === n.path.length) {
        const child = insertNode(n.child, path.subarray(cp), value, resolve);
        // A node without a cached reference was created since the last hash and is reachable only from the current
        // root: update it in place instead of copying (thousands of inserts per block go through the same top nodes).
        if (n.ref === undefined) {
          n.child = child;
          return n;
        }
        return { kind: 'ext', path: n.path, child };
      }
      const branch = emptyBranch();
      const extRest = n.path.subarray(cp + 1);
      branch.children[n.path[cp]] = extRest.length === 0 ? n.child : { kind: 'ext', path: extRest, child: n.child };
      placeInBranch(branch, path.subarray(cp), (rest) => ({ kind: 'leaf', path: rest, value }), value);
      return cp > 0 ? { kind: 'ext', path: path.subarray(0, cp), child: branch } : branch;
    }
    case 'branch': {
      if (n.ref === undefined) {
        if (path.length === 0) n.value = value;
        else n.children[path[0]] = insertNode(n.children[path[0]], path.subarray(1), value, resolve);
        return n;
      }
      const copy: BranchNode = { kind: 'branch', children: n.children.slice(), value: n.value };
      if (path.length === 0) copy.value = value;
      else copy.children[path[0]] = insertNode(n.children[path[0]], path.subarray(1), value, resolve);
      return copy;
    }
  }
}

/** Returns the subtree without `path` (the same object when the key was absent). */
export function deleteNode(node: TrieNode | undefined, path: Uint8Array, resolve: Resolve): TrieNode | undefined {
  if (!node) return undefined;
  const n = resolve(node);
  switch (n.kind) {
    case 'leaf':
      return commonPrefixLength(n.path, path) === n.path.length && n.path.length === path.length ? undefined : node;
    case 'ext': {
      if (commonPrefixLength(n.path, path) !== n.path.length) return node;
      const child = deleteNode(n.child, path.subarray(n.path.length), resolve);
      if (child === n.child) return node;
      return prependPath(n.path, child, resolve);
    }
    case 'branch': {
      let copy: BranchNode;
      if (path.length === 0) {
        if (!n.value) return node;
        copy = { kind: 'branch', children: n.children.slice(), value: undefined };
      } else {
        const old = n.children[path[0]];
        const child = deleteNode(old, path.subarray(1), resolve);
        if (child === old) return node;
        copy = { kind: 'branch', children: n.children.slice(), value: n.value };
        copy.children[path[0]] = child;
      }
      return normaliseBranch(copy, resolve);
    }
  }
}

/** A branch left with a single entry is replaced by a leaf or a longer path. */
function normaliseBranch(branch: BranchNode, resolve: Resolve): TrieNode | undefined {
  let only = -1;
  let count = branch.value ? 1 : 0;
  for (let i = 0; i < 16; i++) {
    if (branch.children[i]) {
      count++;
      only = i;
    }
  }
  if (count >= 2) return branch;
  if (count === 0) return undefined;
  if (only < 0) return { kind: 'leaf', path: new Uint8Array(0), value: branch.value as Uint8Array };
  return prependPath(Uint8Array.of(only), branch.children[only], resolve);
}

/** The subtree `child` reached through `prefix`, merged into one node where the shape demands it. */
function prependPath(prefix: Uint8Array, child: TrieNode | undefined, resolve: Resolve): TrieNode | undefined {
  if (!child) return undefined;
  const c = resolve(child);
  if (c.kind === 'leaf') return { kind: 'leaf', path: concat(prefix, c.path), value: c.value };
  if (c.kind === 'ext') return { kind: 'ext', path: concat(prefix, c.path), child: c.child };
  return { kind: 'ext', path: prefix, child: c };
}
