/**
 * Ordered traversal of a trie: entries in ascending (or descending) key order, optionally starting at a bound, which
 * gives next/previous-key lookup (ethereum/tests trietestnextprev) and range scans without loading unrelated subtrees.
 */
import type { TrieNode } from './node.ts';
import type { Resolve } from './mutate.ts';

/** An entry as a nibble path (full key) and its value. */
export interface NibbleEntry {
  path: Uint8Array;
  value: Uint8Array;
}

function join(prefix: Uint8Array, ...more: (Uint8Array | number)[]): Uint8Array {
  let len = prefix.length;
  for (const m of more) len += typeof m === 'number' ? 1 : m.length;
  const out = new Uint8Array(len);
  out.set(prefix);
  let o = prefix.length;
  for (const m of more) {
    if (typeof m === 'number') out[o++] = m;
    else {
      out.set(m, o);
      o += m.length;
    }
  }
  return out;
}

/** Compares `prefix` against the same-length start of `bound`: <0, 0 (bound continues the prefix) or >0. */
function comparePrefix(prefix: Uint8Array, bound: Uint8Array): number {
  const n = Math.min(prefix.length, bound.length);
  for (let i = 0; i < n; i++) if (prefix[i] !== bound[i]) return prefix[i] - bound[i];
  return prefix.length <= bound.length ? 0 : 1;
}

/**
 * Entries in ascending order with key >= `from` (nibbles), or with `reverse`, descending with key <= `from`.
 * Subtrees wholly outside the bound are skipped without being resolved.
 */
export function* walkEntries(root: TrieNode | undefined, resolve: Resolve, from?: Uint8Array, reverse = false): Generator<NibbleEntry> {
  yield* walk(root, new Uint8Array(0), resolve, from, reverse);
}

function* walk(
  node: TrieNode | undefined,
  prefix: Uint8Array,
  resolve: Resolve,
  from: Uint8Array | undefined,
  reverse: boolean,
): Generator<NibbleEntry> {
  if (!node) return;
  if (from) {
    const c = comparePrefix(prefix, from);
    // Every key under `prefix` is on the wrong side of the bound.
    if ((!reverse && c < 0) || (reverse && c > 0)) return;
    // Every key under `prefix` is on the right side: drop the bound.
    if (c !== 0) from = undefined;
  }
  const n = resolve(node);
  if (n.kind === 'leaf') {
    const path = join(prefix, n.path);
    if (!from || (reverse ? comparePath(path, from) <= 0 : comparePath(path, from) >= 0)) yield { path, value: n.value };
    return;
  }
  if (n.kind === 'ext') {
    yield* walk(n.child, join(prefix, n.path), resolve, from, reverse);
    return;
  }
  // A branch's own value has the shortest key of its subtree: first ascending, last descending.
  const own = n.value && (!from || (reverse ? comparePath(prefix, from) <= 0 : comparePath(prefix, from) >= 0));
  if (own && !reverse) yield { path: prefix, value: n.value as Uint8Array };
  for (let k = 0; k < 16; k++) {
    const i = reverse ? 15 - k : k;
    if (n.children[i]) yield* walk(n.children[i], join(prefix, i), resolve, from, reverse);
  }
  if (own && reverse) yield { path: prefix, value: n.value as Uint8Array };
}

function comparePath(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
