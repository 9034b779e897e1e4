/** Trie behaviour beyond the fixtures: random operations against a Map model, proofs, ordered roots, errors. */
import { describe, expect, it } from 'vitest';
import { bytesToHex, equalBytes } from '../../core/primitives/hex.ts';
import { encodeRlp } from '../../core/primitives/rlp.ts';
import {
  EMPTY_TRIE_ROOT,
  MemoryNodeStore,
  orderedTrieRoot,
  rlpIndexKey,
  sortedEntriesRoot,
  Trie,
  TrieError,
  verifyProof,
} from '../../core/trie/index.ts';

/** Deterministic xorshift so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

function randomBytes(rand: () => number, min: number, max: number): Uint8Array {
  const len = min + Math.floor(rand() * (max - min + 1));
  const out = new Uint8Array(len);
  // A small alphabet makes shared prefixes (extensions, branch values) common.
  for (let i = 0; i < len; i++) out[i] = Math.floor(rand() * 4) * 0x11;
  return out;
}

describe('Trie', () => {
  it('default: empty trie has the empty root', () => {
    expect(bytesToHex(new Trie().root())).toBe(bytesToHex(EMPTY_TRIE_ROOT));
  });

  it('behavior: random puts and deletes match a Map model, incremental commits and reopened tries agree', () => {
    const rand = rng(7);
    const store = new MemoryNodeStore();
    let trie = new Trie(store);
    const model = new Map<string, [Uint8Array, Uint8Array]>();
    for (let round = 0; round < 20; round++) {
      for (let op = 0; op < 50; op++) {
        const key = randomBytes(rand, 0, 4);
        if (rand() < 0.3) {
          trie.delete(key);
          model.delete(bytesToHex(key));
        } else {
          const value = randomBytes(rand, 1, 40);
          trie.put(key, value);
          model.set(bytesToHex(key), [key, value]);
        }
      }
      const root = trie.commit({ unload: round % 2 === 0 });
      expect(bytesToHex(root)).toBe(bytesToHex(sortedEntriesRoot([...model.values()])));
      // Continue from a trie that only knows the root: nodes load lazily from the store.
      trie = new Trie(store, root);
      for (const [key, value] of model.values()) expect(equalBytes(trie.get(key) as Uint8Array, value)).toBe(true);
      const keys = [...trie.entries()].map((e) => bytesToHex(e.key));
      expect(keys).toEqual([...model.keys()].sort());
      expect([...trie.entriesReverse()].map((e) => bytesToHex(e.key))).toEqual([...keys].reverse());
    }
  });

  it('behavior: proofs verify presence and absence; a tampered proof is refused', () => {
    const trie = new Trie();
    for (let i = 0; i < 300; i++) trie.put(encodeRlp(Uint8Array.of(i & 0xff, i >> 8)), new Uint8Array(40).fill(i & 0xff));
    const root = trie.root();
    const present = encodeRlp(Uint8Array.of(5, 0));
    const proof = trie.createProof(present);
    expect(verifyProof(root, present, proof)?.[0]).toBe(5);
    const absent = Uint8Array.of(0xff, 0xff, 0xff);
    expect(verifyProof(root, absent, trie.createProof(absent))).toBeUndefined();
    expect(() => verifyProof(root, present, proof.slice(0, -1))).toThrow(TrieError);
    const tampered = proof.map((p) => p.slice());
    tampered[tampered.length - 1][5] ^= 1;
    expect(() => verifyProof(root, present, tampered)).toThrow(/proof lacks node/);
  });

  it('default: orderedTrieRoot equals inserting RLP(i) keys one by one', () => {
    for (const n of [0, 1, 2, 16, 127, 128, 129, 300, 1000]) {
      const items = Array.from({ length: n }, (_, i) => encodeRlp([Uint8Array.of(i & 0xff), new Uint8Array(i % 70)]));
      const trie = new Trie();
      items.forEach((item, i) => trie.put(rlpIndexKey(i), item));
      expect(bytesToHex(orderedTrieRoot(items))).toBe(bytesToHex(trie.root()));
    }
  });

  it("behavior: a commit after one change writes only the nodes on that key's path", () => {
    const store = new MemoryNodeStore();
    const trie = new Trie(store);
    for (let i = 0; i < 2000; i++) trie.put(encodeRlp(Uint8Array.of(i >> 8, i & 0xff)), new Uint8Array(40).fill(i & 0xff));
    trie.commit();
    const before = store.size;
    let written = 0;
    const counting = {
      getNode: (h: Uint8Array) => store.getNode(h),
      putNodes: (n: readonly { hash: Uint8Array; encoded: Uint8Array }[]) => ((written += n.length), store.putNodes(n)),
    };
    const reopened = new Trie(counting, trie.root());
    reopened.put(encodeRlp(Uint8Array.of(3, 7)), new Uint8Array(40).fill(0xee));
    reopened.commit();
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThanOrEqual(8);
    expect(store.size).toBeLessThanOrEqual(before + 8);
  });

  it('error: a node missing from the store is a typed TRIE_MISSING_NODE', () => {
    const trie = new Trie();
    for (let i = 0; i < 20; i++) trie.put(Uint8Array.of(i), new Uint8Array(40).fill(i));
    const root = trie.root(); // hashed but never committed
    const reopened = new Trie(new MemoryNodeStore(), root);
    expect(() => reopened.get(Uint8Array.of(1))).toThrow(expect.objectContaining({ code: 'TRIE_MISSING_NODE' }));
  });

  it('error: duplicate keys in an entry set are refused', () => {
    const k = Uint8Array.of(1);
    expect(() =>
      sortedEntriesRoot([
        [k, k],
        [k, k],
      ]),
    ).toThrow(TrieError);
  });
});

describe('Trie.prune', () => {
  it('behavior: a trie pruned after every commit keeps the same roots and values as one that is not', () => {
    const rand = rng(18);
    const store = new MemoryNodeStore();
    const pruned = new Trie(store);
    const whole = new Trie(new MemoryNodeStore());
    const model = new Map<string, Uint8Array>();
    const keys: Uint8Array[] = [];
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 40; i++) {
        const reuse = keys.length > 0 && rand() < 0.4;
        const key = reuse ? (keys[Math.floor(rand() * keys.length)] as Uint8Array) : randomBytes(rand, 32, 32);
        if (!reuse) keys.push(key);
        const value = rand() < 0.15 ? new Uint8Array(0) : randomBytes(rand, 1, 80);
        pruned.put(key, value);
        whole.put(key, value);
        if (value.length === 0) model.delete(bytesToHex(key));
        else model.set(bytesToHex(key), value);
      }
      const root = pruned.commit();
      expect(bytesToHex(root)).toBe(bytesToHex(whole.commit()));
      expect(pruned.residentBytes).toBeGreaterThan(0);
      pruned.prune(round % 3);
      expect(pruned.residentBytes).toBe(0);
      expect(bytesToHex(pruned.root())).toBe(bytesToHex(root));
    }
    for (const key of keys) expect(pruned.get(key)).toEqual(model.get(bytesToHex(key)));
    expect([...pruned.entries()].length).toBe(model.size);
  });
});
