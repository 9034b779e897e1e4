/**
 * The state trie of an earlier block whose nodes were not all kept (decision 0025: a follower's batch writes only the
 * nodes of its last state). The trie is rebuilt from the nearest later block whose root is stored: every account and
 * slot that changed between the two blocks gets its value at the earlier block back (from the change sets), which
 * gives exactly the earlier trie, checked against its recorded root. New nodes go to an in-memory overlay.
 */
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { MemoryNodeStore, SecureTrie, type TrieNodeStore, type TrieNodeWrite } from '../../trie/index.ts';
import { encodeStorageLeaf } from '../../trie/stateLeaves.ts';
import { bytesToHex, equalBytes } from '../../primitives/hex.ts';
import { decodeAccount, EMPTY_TRIE_ROOT, encodeAccount } from '../account.ts';
import { StateError } from '../errors.ts';
import { keyOf } from '../keys.ts';
import { HistoricalState, stateRootAt, unwindState } from './history.ts';

/** Reads through `base`, keeps writes in memory (`written`). */
export class OverlayNodeStore implements TrieNodeStore {
  readonly written = new MemoryNodeStore();
  readonly writes: TrieNodeWrite[] = [];
  constructor(private readonly base: TrieNodeStore) {}
  getNode(hash: Uint8Array): Uint8Array | undefined {
    return this.written.getNode(hash) ?? this.base.getNode(hash);
  }
  putNodes(nodes: readonly TrieNodeWrite[]): void {
    this.written.putNodes(nodes);
    for (const n of nodes) this.writes.push(n);
  }
}

/** A trie opened at an earlier block's state root. */
export interface TrieAtBlock {
  root: Uint8Array;
  nodes: TrieNodeStore;
  /** Nodes created by the rebuild (empty when the block's nodes were stored). */
  rebuilt: readonly TrieNodeWrite[];
}

/**
 * Opens the state of block `number` (root `root`) over `nodes`: directly when its root node is stored, otherwise by
 * the rebuild described above. Throws STATE_UNAVAILABLE when no later stored root exists, STATE_CORRUPT when the
 * rebuilt root differs from the recorded one.
 */
export function trieAtBlock(handle: SqlHandle, nodes: TrieNodeStore, number: number, root: Uint8Array): TrieAtBlock {
  const db = connectionOf(handle);
  if (equalBytes(root, EMPTY_TRIE_ROOT) || nodes.getNode(root) !== undefined) return { root, nodes, rebuilt: [] };
  const later = db.prepare('SELECT number, root FROM state_roots WHERE number > ? ORDER BY number').iterate(number) as Iterable<{
    number: number;
    root: Uint8Array;
  }>;
  let base: { number: number; root: Uint8Array } | undefined;
  for (const row of later) {
    if (nodes.getNode(row.root) !== undefined) {
      base = { number: row.number, root: new Uint8Array(row.root) };
      break;
    }
  }
  if (base === undefined)
    throw new StateError('STATE_UNAVAILABLE', `trie nodes of block ${number} are not kept and no later stored root exists`, { number });
  const overlay = new OverlayNodeStore(nodes);
  const then = new HistoricalState(db, number);
  const accounts = new SecureTrie(overlay, base.root);
  const slotRows = db
    .prepare('SELECT DISTINCT address, slot FROM state_storage_changes WHERE number > ? AND number <= ?')
    .all(number, base.number) as { address: Uint8Array; slot: Uint8Array }[];
  const slotsByAddress = new Map<string, Uint8Array[]>();
  for (const r of slotRows) {
    const key = keyOf(r.address);
    const list = slotsByAddress.get(key) ?? [];
    list.push(new Uint8Array(r.slot));
    slotsByAddress.set(key, list);
  }
  const addresses = db
    .prepare('SELECT DISTINCT address FROM state_account_changes WHERE number > ? AND number <= ?')
    .all(number, base.number) as { address: Uint8Array }[];
  for (const { address: raw } of addresses) {
    const address = new Uint8Array(raw);
    const account = then.getAccount(address);
    const slots = slotsByAddress.get(keyOf(address));
    if (slots !== undefined && account !== undefined) {
      const leaf = accounts.get(address);
      const laterRoot = leaf === undefined ? EMPTY_TRIE_ROOT : decodeAccount(leaf).storageRoot;
      const storage = new SecureTrie(overlay, laterRoot);
      for (const slot of slots) storage.put(slot, encodeStorageLeaf(then.getStorage(address, slot)));
      const storageRoot = storage.commit();
      if (!equalBytes(storageRoot, account.storageRoot))
        throw new StateError('STATE_CORRUPT', `rebuilt storage root of ${bytesToHex(address)} at block ${number} differs`, {
          number,
          expected: bytesToHex(account.storageRoot),
          actual: bytesToHex(storageRoot),
        });
    }
    if (account === undefined) accounts.delete(address);
    else accounts.put(address, encodeAccount(account));
  }
  const rebuilt = accounts.commit();
  if (!equalBytes(rebuilt, root))
    throw new StateError('STATE_CORRUPT', `rebuilt state root of block ${number} differs from the recorded one`, {
      number,
      expected: bytesToHex(root),
      actual: bytesToHex(rebuilt),
    });
  return { root, nodes: overlay, rebuilt: overlay.writes };
}

/**
 * `unwindState` plus the trie: before the change sets above `number` go, rebuilds block `number`'s trie if its nodes
 * were not kept and writes the rebuilt nodes, so the importer can reopen its trie there. Run inside the store's
 * unwind transaction, after `steady()` wrote the open batch (the head's nodes are stored).
 */
export function unwindStateAndTrie(handle: SqlHandle, nodes: TrieNodeStore & { flush(): number }, number: number): void {
  const db = connectionOf(handle);
  const root = stateRootAt(db, number);
  if (root === undefined) throw new StateError('STATE_UNAVAILABLE', `cannot unwind to block ${number}: its state is not kept`, { number });
  const at = trieAtBlock(db, nodes, number, root);
  if (at.rebuilt.length > 0) {
    nodes.putNodes(at.rebuilt);
    nodes.flush();
  }
  unwindState(db, number);
}
