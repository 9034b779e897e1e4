/** Merkle-Patricia trie: public surface. */
export { TrieError, type TrieErrorCode } from './errors.ts';
export { EMPTY_TRIE_ROOT } from './node.ts';
export { MemoryNodeStore, type TrieNodeStore, type TrieNodeWrite } from './nodeStore.ts';
export { Trie, type TrieEntry } from './trie.ts';
export { SecureTrie } from './secureTrie.ts';
export { verifyProof } from './proof.ts';
export { orderedTrieRoot, rlpIndexKey, sortedEntriesRoot, trieRootFromSorted } from './orderedTrieRoot.ts';
export { encodeAccountLeaf, encodeStorageLeaf, type AccountLeaf } from './stateLeaves.ts';
