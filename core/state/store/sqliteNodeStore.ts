/**
 * Trie nodes in the `trie_nodes` table. Writes are buffered until the block is accepted (`flush()` runs inside the
 * block's SAVEPOINT), so a rejected block leaves no rows behind and the store never issues implicit transactions.
 * A bounded read cache keeps the upper levels of the account trie hot between blocks.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { TrieNodeStore, TrieNodeWrite } from '../../trie/index.ts';
import { keyOf } from '../keys.ts';
import { ChunkedInsert } from './chunkedInsert.ts';

const CACHE_LIMIT = 200_000;

/** `TrieNodeStore` over SQLite with write buffering. */
export class SqliteNodeStore implements TrieNodeStore {
  private readonly pending = new Map<string, TrieNodeWrite>();
  private readonly cache = new Map<string, Uint8Array>();
  private readonly select: BetterSqlite3.Statement<[Uint8Array], { node: Uint8Array }>;
  private readonly insert: ChunkedInsert;

  constructor(db: BetterSqlite3.Database) {
    this.select = db.prepare('SELECT node FROM trie_nodes WHERE hash = ?');
    this.insert = new ChunkedInsert(db, 'INSERT OR IGNORE INTO trie_nodes (hash, node)', 2);
  }

  getNode(hash: Uint8Array): Uint8Array | undefined {
    const key = keyOf(hash);
    const hit = this.pending.get(key)?.encoded ?? this.cache.get(key);
    if (hit !== undefined) return hit;
    const row = this.select.get(hash);
    if (row === undefined) return undefined;
    const node = new Uint8Array(row.node);
    this.remember(key, node);
    return node;
  }

  putNodes(nodes: readonly TrieNodeWrite[]): void {
    for (const n of nodes) this.pending.set(keyOf(n.hash), n);
  }

  /** Writes buffered nodes; call inside the block's transaction. */
  flush(): number {
    let n = 0;
    for (const [key, w] of this.pending) {
      this.insert.add(w.hash, w.encoded);
      this.remember(key, w.encoded);
      n++;
    }
    this.insert.flush();
    this.pending.clear();
    return n;
  }

  /** Forgets buffered nodes of a rejected block. */
  discard(): void {
    this.pending.clear();
    this.insert.discard();
  }

  private remember(key: string, node: Uint8Array): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, node);
  }
}
