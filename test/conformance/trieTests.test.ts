/**
 * ethereum/tests TrieTests through our trie: every file (plain, secure, any-order, hex-encoded secure, next/prev).
 * Roots are checked three ways where they apply: incremental inserts, a reopened trie after commit, and the one-pass
 * sorted builder; every key also gets a proof that verifies against the root.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, looseHexToBytes } from '../../core/primitives/hex.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';
import { MemoryNodeStore, SecureTrie, sortedEntriesRoot, Trie, verifyProof } from '../../core/trie/index.ts';
import { conformancePath, readJson } from '../support/conformance.ts';

const dir = (name: string): string => conformancePath('ethereum-tests', 'TrieTests', name);
const utf8 = new TextEncoder();

/** Fixture strings: 0x-prefixed means hex, anything else is the UTF-8 bytes (null = delete). */
function bytesOf(s: string | null, hexOnly = false): Uint8Array {
  if (s === null) return new Uint8Array(0);
  if (hexOnly || s.startsWith('0x')) return looseHexToBytes(s);
  return utf8.encode(s);
}

interface RootCase {
  in: [string, string | null][] | Record<string, string | null>;
  root: string;
}

function runRootCases(file: string, secure: boolean, hexOnly = false): void {
  const cases = readJson<Record<string, RootCase>>(dir(file));
  describe(file, () => {
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        const pairs = Array.isArray(c.in) ? c.in : Object.entries(c.in);
        const store = new MemoryNodeStore();
        const trie = secure ? new SecureTrie(store) : new Trie(store);
        const final = new Map<string, [Uint8Array, Uint8Array]>();
        for (const [k, v] of pairs) {
          const key = bytesOf(k, hexOnly);
          const value = bytesOf(v, hexOnly);
          trie.put(key, value);
          final.set(bytesToHex(key), [secure ? keccak256(key) : key, value]);
        }
        const root = trie.commit();
        expect(bytesToHex(root)).toBe(c.root);
        // The same root from the one-pass sorted builder.
        expect(bytesToHex(sortedEntriesRoot([...final.values()]))).toBe(c.root);
        // A trie reopened from the store at the committed root reads every value back and proves it.
        const reopened = new Trie(store, root);
        for (const [trieKey, value] of final.values()) {
          expect(bytesToHex(reopened.get(trieKey) ?? new Uint8Array(0))).toBe(bytesToHex(value));
          const proved = verifyProof(root, trieKey, reopened.createProof(trieKey));
          expect(bytesToHex(proved ?? new Uint8Array(0))).toBe(bytesToHex(value));
        }
      });
    }
  });
}

runRootCases('trietest.json', false);
runRootCases('trieanyorder.json', false);
runRootCases('trietest_secureTrie.json', true);
runRootCases('trieanyorder_secureTrie.json', true);
runRootCases('hex_encoded_securetrie_test.json', true, true);

describe('trietestnextprev.json', () => {
  const cases = readJson<Record<string, { in: string[]; tests: [string, string, string][] }>>(dir('trietestnextprev.json'));
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const trie = new Trie();
      for (const k of c.in) trie.put(utf8.encode(k), utf8.encode(k));
      trie.commit();
      const reopened = new Trie(trie.store, trie.root());
      for (const [key, prev, next] of c.tests) {
        const k = utf8.encode(key);
        const text = (e: { key: Uint8Array } | undefined): string => (e ? new TextDecoder().decode(e.key) : '');
        expect([key, text(reopened.prev(k)), text(reopened.next(k))]).toEqual([key, prev, next]);
      }
    });
  }
});
