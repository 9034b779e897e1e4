/** Typed errors of the Merkle-Patricia trie layer. */
import { XoneError } from '../errors.ts';

export type TrieErrorCode =
  /** A node referenced by hash is not in the node store (pruned or corrupt database). */
  | 'TRIE_MISSING_NODE'
  /** Stored or proof bytes do not decode as a trie node. */
  | 'TRIE_BAD_NODE'
  /** A Merkle proof is incomplete, has a node whose hash does not match, or contradicts itself. */
  | 'TRIE_BAD_PROOF'
  /** Keys must be byte strings; the empty key is refused for the secure trie only by hashing, never silently. */
  | 'TRIE_BAD_KEY';

export class TrieError extends XoneError<TrieErrorCode> {}
