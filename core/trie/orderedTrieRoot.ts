/**
 * Trie roots built in one pass from sorted keys, without inserting node by node: each node is encoded and hashed
 * exactly once, bottom-up. This is the hot path of block validation (transactions, receipts and withdrawals roots,
 * keys RLP(index)) and of genesis state roots; see docs/decisions for the measurement against repeated inserts.
 */
import { encodeRlp, encodeRlpListOfEncoded } from '../primitives/rlp.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { bigIntToBytes } from '../primitives/hex.ts';
import { EMPTY_REF, EMPTY_TRIE_ROOT, encodeLeafRlp, refOfEncoded } from './node.ts';
import { TrieError } from './errors.ts';

function nibbleAt(key: Uint8Array, i: number): number {
  const b = key[i >> 1];
  return i & 1 ? b & 0x0f : b >> 4;
}

/** Hex-prefix of the nibbles [from, to) of `key`. */
function hexPrefix(key: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len & 1;
  const out = new Uint8Array((len >> 1) + 1);
  const flag = (leaf ? 2 : 0) + odd;
  let i = from;
  if (odd) out[0] = (flag << 4) | nibbleAt(key, i++);
  else out[0] = flag << 4;
  for (let o = 1; i < to; i += 2, o++) out[o] = (nibbleAt(key, i) << 4) | nibbleAt(key, i + 1);
  return out;
}

/** Encoding of the node covering keys [lo, hi), which all share their first `depth` nibbles. */
function buildNode(keys: readonly Uint8Array[], values: readonly Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const first = keys[lo];
  if (hi - lo === 1) return encodeLeafRlp(hexPrefix(first, depth, first.length * 2, true), values[lo]);
  const last = keys[hi - 1];
  const max = Math.min(first.length, last.length) * 2;
  let cp = depth;
  while (cp < max && nibbleAt(first, cp) === nibbleAt(last, cp)) cp++;
  if (cp > depth) {
    const child = refOfEncoded(buildBranch(keys, values, lo, hi, cp));
    return encodeRlpListOfEncoded([encodeRlp(hexPrefix(first, depth, cp, false)), child]);
  }
  return buildBranch(keys, values, lo, hi, depth);
}

function buildBranch(keys: readonly Uint8Array[], values: readonly Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const parts = new Array<Uint8Array>(17).fill(EMPTY_REF);
  let i = lo;
  // Sorted order puts a key that ends exactly here first; it is the branch's own value.
  if (keys[i].length * 2 === depth) parts[16] = encodeRlp(values[i++]);
  while (i < hi) {
    const n = nibbleAt(keys[i], depth);
    let j = i + 1;
    while (j < hi && nibbleAt(keys[j], depth) === n) j++;
    parts[n] = refOfEncoded(buildNode(keys, values, i, j, depth + 1));
    i = j;
  }
  return encodeRlpListOfEncoded(parts);
}

/**
 * Root of the trie holding `values[i]` under `keys[i]`. Keys must be sorted ascending (bytewise) and unique;
 * values non-empty. Use `sortedEntriesRoot` when the keys are not sorted yet.
 */
export function trieRootFromSorted(keys: readonly Uint8Array[], values: readonly Uint8Array[]): Uint8Array {
  if (keys.length === 0) return EMPTY_TRIE_ROOT;
  return keccak256(buildNode(keys, values, 0, keys.length, 0));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Root of a key/value set in any order (duplicates refused, empty values skipped as deletions). */
export function sortedEntriesRoot(entries: readonly (readonly [Uint8Array, Uint8Array])[]): Uint8Array {
  const sorted = entries.filter((e) => e[1].length > 0).sort((a, b) => compareBytes(a[0], b[0]));
  for (let i = 1; i < sorted.length; i++) {
    if (compareBytes(sorted[i - 1][0], sorted[i][0]) === 0) throw new TrieError('TRIE_BAD_KEY', 'trie: duplicate key in entry set');
  }
  return trieRootFromSorted(
    sorted.map((e) => e[0]),
    sorted.map((e) => e[1]),
  );
}

const rlpIndexCache: Uint8Array[] = [];

/** RLP(i), the key of item i in an ordered trie. */
export function rlpIndexKey(i: number): Uint8Array {
  let k = rlpIndexCache[i];
  if (!k) {
    k = encodeRlp(bigIntToBytes(i));
    if (i < 65536) rlpIndexCache[i] = k;
  }
  return k;
}

/**
 * Root of the ordered trie of a block's transactions, receipts or withdrawals: item i under key RLP(i), items given
 * in their encoded (consensus) form. RLP(i) sorts as 1..127, 0, 128.. (0x80 is RLP(0)), so no sort is needed.
 */
export function orderedTrieRoot(items: readonly Uint8Array[]): Uint8Array {
  const n = items.length;
  if (n === 0) return EMPTY_TRIE_ROOT;
  const keys: Uint8Array[] = new Array<Uint8Array>(n);
  const values: Uint8Array[] = new Array<Uint8Array>(n);
  let o = 0;
  for (let i = 1; i < Math.min(n, 128); i++, o++) {
    keys[o] = rlpIndexKey(i);
    values[o] = items[i];
  }
  keys[o] = rlpIndexKey(0);
  values[o++] = items[0];
  for (let i = 128; i < n; i++, o++) {
    keys[o] = rlpIndexKey(i);
    values[o] = items[i];
  }
  return trieRootFromSorted(keys, values);
}
