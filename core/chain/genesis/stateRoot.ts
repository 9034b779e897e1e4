/**
 * The state root of a genesis alloc: a secure trie of accounts RLP([nonce, balance, storageRoot, codeHash]), each
 * storage root a secure trie of RLP(minimal value) by keccak256(slot). Built with the one-pass sorted builder, since
 * the whole set is known up front.
 */
import { keccak256 } from '../../primitives/keccak.ts';
import { sortedEntriesRoot } from '../../trie/orderedTrieRoot.ts';
import { encodeAccountLeaf, encodeStorageLeaf } from '../../trie/stateLeaves.ts';
import type { GenesisAccount, GenesisAlloc } from './alloc.ts';

/** Storage root of one account. */
export function storageRootOf(account: GenesisAccount): Uint8Array {
  const entries: [Uint8Array, Uint8Array][] = [];
  for (const [slot, value] of account.storage) entries.push([keccak256(Buffer.from(slot, 'hex')), encodeStorageLeaf(value)]);
  return sortedEntriesRoot(entries);
}

/** RLP of the account as the state trie stores it. */
export function encodeGenesisAccount(account: GenesisAccount): Uint8Array {
  return encodeAccountLeaf({
    nonce: account.nonce,
    balance: account.balance,
    storageRoot: storageRootOf(account),
    codeHash: keccak256(account.code),
  });
}

/** State root of the whole alloc. */
export function allocStateRoot(alloc: GenesisAlloc): Uint8Array {
  const entries: [Uint8Array, Uint8Array][] = [];
  for (const account of alloc.values()) entries.push([keccak256(account.address), encodeGenesisAccount(account)]);
  return sortedEntriesRoot(entries);
}
