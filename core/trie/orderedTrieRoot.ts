/**
 * Trie roots built in one pass from sorted keys, without inserting node by node: each node is encoded and hashed
 * exactly once, bottom-up. This is the hot path of block validation (transactions, receipts and withdrawals roots,
 * keys RLP(index)) and of genesis state roots; see docs/decisions for the measurement against repeated inserts.
 */
import { encodeRlp, rlpStringLength, writeRlpHeader, writeRlpString } from '../primitives/rlp.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { bigIntToBytes } from '../primitives/hex.ts';
import { EMPTY_REF, EMPTY_TRIE_ROOT, hashRef } from './node.ts';
import { TrieError } from './errors.ts';

function nibbleAt(key: Uint8Array, i: number): number {
  const b = key[i >> 1];
  return i & 1 ? b & 0x0f : b >> 4;
}

// One node is encoded at a time into a reused buffer (children are finished before their parent starts), then hashed
// or copied out: a leaf costs no allocation but its hash. Measured: this halves the encoding share of a receipts root.
let out = new Uint8Array(1 << 14);
let hp = new Uint8Array(64);

function reserve(n: number): void {
  if (out.length < n) out = new Uint8Array(Math.max(n, out.length * 2));
}

function writeHeader(pos: number, len: number, short: number, long: number): number {
  return writeRlpHeader(out, pos, len, short, long);
}

/** The first `len` bytes of `src` as an RLP byte string at `pos` of the shared buffer. */
function writeString(pos: number, src: Uint8Array, len: number): number {
  return writeRlpString(out, pos, len === src.length ? src : src.subarray(0, len));
}

/** Hex-prefix of the nibbles [from, to) of `key` into `hp`; returns its length. */
function hexPrefix(key: Uint8Array, from: number, to: number, leaf: boolean): number {
  const len = to - from;
  const size = (len >> 1) + 1;
  if (hp.length < size) hp = new Uint8Array(size * 2);
  const odd = len & 1;
  const flag = (leaf ? 2 : 0) + odd;
  let i = from;
  if (odd) hp[0] = (flag << 4) | nibbleAt(key, i++);
  else hp[0] = flag << 4;
  for (let o = 1; i < to; i += 2, o++) hp[o] = (nibbleAt(key, i) << 4) | nibbleAt(key, i + 1);
  return size;
}

/** The reference of the node just written to out[0, len): inline copy below 32 bytes, else its hash. */
function finish(len: number): Uint8Array {
  return len < 32 ? out.slice(0, len) : hashRef(keccak256(out.subarray(0, len)));
}

/** Reference of the node covering keys [lo, hi), which all share their first `depth` nibbles. */
function buildNode(keys: readonly Uint8Array[], values: readonly Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const first = keys[lo];
  if (hi - lo === 1) {
    const value = values[lo];
    const hpLen = hexPrefix(first, depth, first.length * 2, true);
    const payload = rlpStringLength(hpLen, hp[0]) + rlpStringLength(value.length, value[0]);
    reserve(payload + 5);
    let pos = writeHeader(0, payload, 0xc0, 0xf7);
    pos = writeString(pos, hp, hpLen);
    return finish(writeString(pos, value, value.length));
  }
  const last = keys[hi - 1];
  const max = Math.min(first.length, last.length) * 2;
  let cp = depth;
  while (cp < max && nibbleAt(first, cp) === nibbleAt(last, cp)) cp++;
  if (cp === depth) return buildBranch(keys, values, lo, hi, depth);
  const child = buildBranch(keys, values, lo, hi, cp);
  const hpLen = hexPrefix(first, depth, cp, false);
  const payload = rlpStringLength(hpLen, hp[0]) + child.length;
  reserve(payload + 5);
  const pos = writeString(writeHeader(0, payload, 0xc0, 0xf7), hp, hpLen);
  out.set(child, pos);
  return finish(pos + child.length);
}

function buildBranch(keys: readonly Uint8Array[], values: readonly Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const refs = new Array<Uint8Array>(16).fill(EMPTY_REF);
  let i = lo;
  // Sorted order puts a key that ends exactly here first; it is the branch's own value.
  const own = keys[i].length * 2 === depth ? values[i++] : undefined;
  while (i < hi) {
    const n = nibbleAt(keys[i], depth);
    let j = i + 1;
    while (j < hi && nibbleAt(keys[j], depth) === n) j++;
    refs[n] = buildNode(keys, values, i, j, depth + 1);
    i = j;
  }
  let payload = own ? rlpStringLength(own.length, own[0]) : 1;
  for (const r of refs) payload += r.length;
  reserve(payload + 5);
  let pos = writeHeader(0, payload, 0xc0, 0xf7);
  for (const r of refs) {
    out.set(r, pos);
    pos += r.length;
  }
  if (own) pos = writeString(pos, own, own.length);
  else out[pos++] = 0x80;
  return finish(pos);
}

/**
 * Root of the trie holding `values[i]` under `keys[i]`. Keys must be sorted ascending (bytewise) and unique;
 * values non-empty. Use `sortedEntriesRoot` when the keys are not sorted yet.
 */
export function trieRootFromSorted(keys: readonly Uint8Array[], values: readonly Uint8Array[]): Uint8Array {
  if (keys.length === 0) return EMPTY_TRIE_ROOT;
  const ref = buildNode(keys, values, 0, keys.length, 0);
  // The root is always hashed, even when its encoding is short enough to be inline.
  return ref.length < 32 ? keccak256(ref) : ref.subarray(1);
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
