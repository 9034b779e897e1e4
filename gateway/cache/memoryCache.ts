import type { CacheStore } from './types.ts';

interface Entry {
  readonly key: string;
  value: string;
  until: number;
  blockHash: string | undefined;
  /** Neighbours in recency order (`older` towards the next to evict). */
  older: Entry | undefined;
  newer: Entry | undefined;
}

/**
 * In-process LRU with per-entry TTL and a per-entry size cap (a value over `maxEntryBytes` is not stored at all).
 * Recency is a doubly linked list beside the Map, and a hit or an overwrite only relinks its entry: the Map sees a
 * key once on insert and once on removal. (Moving a hit to the end by `delete` + `set` of the same key, as this did
 * before, leaves a hole in that key's hash chain each time until V8 rehashes the table: in a 10,000-entry cache a
 * hot key's lookup walked thousands of holes, 14-30 us per hit on Node 20, 20 % of the gateway's busy CPU.)
 */
export class MemoryCache implements CacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byBlock = new Map<string, Set<string>>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;

  constructor(
    private readonly maxEntries: number,
    private readonly maxEntryBytes: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async get(key: string): Promise<string | undefined> {
    return this.getSync(key);
  }

  /** Synchronous lookup (the hot path avoids a microtask when it can). */
  getSync(key: string): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.now()) {
      this.remove(e);
      return undefined;
    }
    this.touch(e);
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number, blockHash?: string): Promise<void> {
    if (value.length > this.maxEntryBytes || ttlMs <= 0) return;
    const until = this.now() + ttlMs;
    const old = this.entries.get(key);
    if (old) {
      if (old.blockHash !== blockHash) {
        this.untag(old);
        old.blockHash = blockHash;
        this.tag(old);
      }
      old.value = value;
      old.until = until;
      this.touch(old);
      return;
    }
    const e: Entry = { key, value, until, blockHash, older: this.newest, newer: undefined };
    if (this.newest) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
    this.entries.set(key, e);
    this.tag(e);
    while (this.entries.size > this.maxEntries && this.oldest) this.remove(this.oldest);
  }

  evictBlock(blockHash: string): void {
    const keys = this.byBlock.get(blockHash);
    if (!keys) return;
    this.byBlock.delete(blockHash);
    for (const k of keys) {
      const e = this.entries.get(k);
      if (e) this.remove(e);
    }
  }

  /** Number of live entries (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Makes `e` the most recently used. */
  private touch(e: Entry): void {
    if (e === this.newest) return;
    this.unlink(e);
    e.older = this.newest;
    e.newer = undefined;
    if (this.newest) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
  }

  private unlink(e: Entry): void {
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.newest = e.older;
    e.older = e.newer = undefined;
  }

  private tag(e: Entry): void {
    if (!e.blockHash) return;
    let set = this.byBlock.get(e.blockHash);
    if (!set) this.byBlock.set(e.blockHash, (set = new Set()));
    set.add(e.key);
  }

  private untag(e: Entry): void {
    if (!e.blockHash) return;
    const set = this.byBlock.get(e.blockHash);
    set?.delete(e.key);
    if (set?.size === 0) this.byBlock.delete(e.blockHash);
  }

  private remove(e: Entry): void {
    this.entries.delete(e.key);
    this.unlink(e);
    this.untag(e);
  }
}
