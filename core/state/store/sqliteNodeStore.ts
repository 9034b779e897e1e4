/**
 * Trie nodes in the `trie_nodes` table. Writes are buffered in memory, never in an implicit transaction:
 * - `flush()` writes every buffered node (genesis, the per-block path of a store without batch hooks);
 * - `flushReachable(root)` writes only the buffered nodes reachable from `root` (decision 0025): within a follower's
 *   batch, the upper nodes every block rewrites are written once, for the batch's last state, and nodes of
 *   intermediate states are dropped. Those states stay readable (change sets) and provable (`trieAt.ts` rebuilds
 *   their trie from a later kept root).
 * Invariant: a node not buffered here that is reachable from an accepted root is in the table, so a walk from a root
 * stops at the first node that is not buffered.
 * A read cache bounded by bytes (generationalCache.ts) keeps what blocks read again (storage tries, which are reopened
 * per block, and the account trie's nodes after it was pruned) hot between blocks.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { connectionOf, type SqlHandle } from '../../store/connection.ts';
import { TrieError, type TrieNodeStore, type TrieNodeWrite } from '../../trie/index.ts';
import { equalBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { HashMap } from './hashMap.ts';
import { ChunkedInsert } from './chunkedInsert.ts';
import { GenerationalCache } from './generationalCache.ts';

/**
 * Bytes of the node read cache. An entry keeps its hash and its encoding alive, each a Uint8Array with its own
 * ArrayBuffer, plus the map entry: measured at ~320 bytes beyond the encoding (a 48-block follower batch: 142,254
 * cached nodes held 65 MB).
 */
export const NODE_CACHE_BYTES = 16 << 20;
const NODE_ENTRY_OVERHEAD = 320;
/** What a buffered node costs: the write record, the map entry, hash and encoding (see NODE_ENTRY_OVERHEAD). */
const PENDING_ENTRY_OVERHEAD = 360;

/** `TrieNodeStore` over SQLite with write buffering. */
export class SqliteNodeStore implements TrieNodeStore {
  /** Rows are checked against their hash when read; buffered and cached nodes are ours (hashed here or checked). */
  readonly verifiesNodes = true;
  private readonly pending = new HashMap<TrieNodeWrite>();
  private readonly cache = new GenerationalCache<Uint8Array, Uint8Array>(
    NODE_CACHE_BYTES,
    (_hash, node) => node.length + NODE_ENTRY_OVERHEAD,
    () => new HashMap<Uint8Array>(),
  );
  private pendingBytes = 0;
  private readonly select: BetterSqlite3.Statement<[Uint8Array], { node: Uint8Array }>;
  private readonly insert: ChunkedInsert;

  constructor(handle: SqlHandle) {
    const db = connectionOf(handle);
    this.select = db.prepare('SELECT node FROM trie_nodes WHERE hash = ?');
    this.insert = new ChunkedInsert(db, 'INSERT OR IGNORE INTO trie_nodes (hash, node)', 2);
  }

  getNode(hash: Uint8Array): Uint8Array | undefined {
    const hit = this.pending.get(hash)?.encoded ?? this.cache.get(hash);
    if (hit !== undefined) return hit;
    const row = this.select.get(hash);
    if (row === undefined) return undefined;
    const node = new Uint8Array(row.node);
    if (!equalBytes(keccak256(node), hash)) throw new TrieError('TRIE_BAD_NODE', 'trie: stored node does not match its hash');
    this.remember(hash.slice(), node);
    return node;
  }

  putNodes(nodes: readonly TrieNodeWrite[]): void {
    for (const n of nodes) {
      this.pending.set(n.hash, n);
      this.pendingBytes += n.encoded.length + PENDING_ENTRY_OVERHEAD;
    }
  }

  /** Estimated bytes of the buffered nodes (the batch's memory bound is checked against this; re-puts count twice). */
  get pendingSize(): number {
    return this.pendingBytes;
  }

  /** Forgets the read cache (not the buffered writes): rows are read again when next needed. */
  dropReadCache(): void {
    this.cache.clear();
  }

  /** The read cache's counters (bench and diagnostics). */
  cacheStats(): ReturnType<GenerationalCache<Uint8Array, Uint8Array>['stats']> {
    return this.cache.stats();
  }

  /** Writes every buffered node; call inside the block's transaction. */
  flush(): number {
    let n = 0;
    for (const [, w] of this.pending.entries()) {
      this.insert.add(w.hash, w.encoded);
      this.remember(w.hash, w.encoded);
      n++;
    }
    this.insert.flush();
    this.pending.clear();
    this.pendingBytes = 0;
    return n;
  }

  /**
   * Writes the buffered nodes reachable from `root` (account trie, and the storage tries its new account leaves name)
   * and returns how many. The buffer is kept: call `dropPending()` once the transaction holding these rows can no
   * longer roll back without the whole batch.
   */
  flushReachable(root: Uint8Array): number {
    // No visited set: the walk only enters buffered nodes, a node reached twice (equal subtrees) is written twice
    // under OR IGNORE, and hashes admit no cycles.
    const stack: Uint8Array[] = [root];
    let n = 0;
    while (stack.length > 0) {
      const w = this.pending.get(stack.pop() as Uint8Array);
      if (w === undefined) continue;
      this.insert.add(w.hash, w.encoded);
      this.remember(w.hash, w.encoded);
      n++;
      childHashes(w.encoded, stack);
    }
    this.insert.flush();
    return n;
  }

  /** Forgets every buffered node (after `flushReachable` of the accepted root, or when the batch was rolled back). */
  dropPending(): void {
    this.pending.clear();
    this.pendingBytes = 0;
    this.insert.discard();
  }

  /**
   * A rejected block: its nodes stay buffered (content-addressed, never written unless an accepted root reaches
   * them, dropped with the rest at the next flush), so the parent state's unwritten nodes stay readable.
   */
  discard(): void {
    this.insert.discard();
  }

  private remember(hash: Uint8Array, node: Uint8Array): void {
    this.cache.set(hash, node);
  }
}

let itemStart = 0;
let itemEnd = 0;
let itemList = false;

/** Reads the RLP item header at `pos` into itemStart/itemEnd/itemList (payload bounds); returns the item's end. */
function readItem(b: Uint8Array, pos: number): number {
  const p = b[pos] as number;
  let len = 0;
  if (p < 0x80) {
    itemStart = pos;
    itemEnd = pos + 1;
    itemList = false;
    return itemEnd;
  }
  if (p < 0xb8) {
    itemStart = pos + 1;
    len = p - 0x80;
    itemList = false;
  } else if (p < 0xc0) {
    const ll = p - 0xb7;
    for (let i = 1; i <= ll; i++) len = len * 256 + (b[pos + i] as number);
    itemStart = pos + 1 + ll;
    itemList = false;
  } else if (p < 0xf8) {
    itemStart = pos + 1;
    len = p - 0xc0;
    itemList = true;
  } else {
    const ll = p - 0xf7;
    for (let i = 1; i <= ll; i++) len = len * 256 + (b[pos + i] as number);
    itemStart = pos + 1 + ll;
    itemList = true;
  }
  itemEnd = itemStart + len;
  return itemEnd;
}

/**
 * Pushes the hashed children of an encoded node (read in place, nothing decoded): 32-byte references of branches and
 * extensions (inline children are walked in place), and the storage root of an account leaf (a leaf whose value is an
 * RLP list: account leaves hold RLP([nonce, balance, storageRoot, codeHash]), storage leaves hold RLP strings).
 */
function childHashes(b: Uint8Array, out: Uint8Array[]): void {
  readItem(b, 0);
  if (!itemList) return;
  const starts: number[] = [];
  const ends: number[] = [];
  const lists: boolean[] = [];
  for (let pos = itemStart, end = itemEnd; pos < end;) {
    pos = readItem(b, pos);
    starts.push(itemStart);
    ends.push(itemEnd);
    lists.push(itemList);
  }
  const ref = (i: number, full: number): void => {
    if (lists[i]) childHashes(b.subarray(full, ends[i]), out);
    else if ((ends[i] as number) - (starts[i] as number) === 32) out.push(b.subarray(starts[i], ends[i]));
  };
  if (starts.length === 17) {
    let pos = itemStartOfList(b);
    for (let i = 0; i < 16; i++) {
      const next = readItem(b, pos);
      ref(i, pos);
      pos = next;
    }
    return;
  }
  if (starts.length !== 2 || lists[0] || starts[0] === ends[0]) return;
  const flag = (b[starts[0] as number] as number) >> 4;
  const second = ends[0] as number;
  if (flag < 2) {
    ref(1, second);
    return;
  }
  if (lists[1] || starts[1] === ends[1] || (b[starts[1] as number] as number) < 0xc0) return;
  const account = b.subarray(starts[1], ends[1]);
  readItem(account, 0);
  if (!itemList) return;
  let pos = itemStart;
  for (let i = 0; i < 3 && pos < account.length; i++) {
    pos = readItem(account, pos);
    if (i === 2 && !itemList && itemEnd - itemStart === 32) out.push(account.subarray(itemStart, itemEnd));
  }
}

/** Offset of the first item inside the list at offset 0. */
function itemStartOfList(b: Uint8Array): number {
  readItem(b, 0);
  return itemStart;
}
