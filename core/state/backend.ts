/**
 * The committed-state seam with two implementations: `MemoryState` (test vectors, genesis) and the store-backed
 * state (a node's datadir). Both read synchronously and accept a block's changes once its root is verified.
 */
import type { StateChanges, StateReader } from './interface.ts';
import type { TrieNodeStore } from '../trie/index.ts';

/** Committed state plus the trie nodes that prove it. */
export interface StateBackend extends StateReader {
  /** Where trie nodes are read and committed. */
  readonly nodes: TrieNodeStore;
  /** Makes a verified block's changes the committed state (`storageRoots` from the root computation). */
  applyChanges(changes: StateChanges, storageRoots: ReadonlyMap<string, Uint8Array>): void;
}
