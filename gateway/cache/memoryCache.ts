import type { CacheStore } from './types.ts';

interface Entry {
  value: string;
  until: number;
  blockHash: string | undefined;
}

/**
 * In-process LRU with per-entry TTL and a per-entry size cap (a value over `maxEntryBytes` is not stored at all).
 * A Map keeps insertion order, so re-inserting on hit makes the first key the least recently used.
 */
export class MemoryCache implements CacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byBlock = new Map<string, Set<string>>();

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
      this.remove(key, e);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number, blockHash?: string): Promise<void> {
    if (value.length > this.maxEntryBytes || ttlMs <= 0) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { value, until: this.now() + ttlMs, blockHash });
    if (blockHash) {
      let set = this.byBlock.get(blockHash);
      if (!set) this.byBlock.set(blockHash, (set = new Set()));
      set.add(key);
    }
    while (this.entries.size > this.maxEntries) {
      const [lruKey, lru] = this.entries.entries().next().value as [string, Entry];
      this.remove(lruKey, lru);
    }
  }

  evictBlock(blockHash: string): void {
    const keys = this.byBlock.get(blockHash);
    if (!keys) return;
    for (const k of keys) this.entries.delete(k);
    this.byBlock.delete(blockHash);
  }

  /** Number of live entries (tests). */
  get size(): number {
    return this.entries.size;
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key);
    if (e.blockHash) this.byBlock.get(e.blockHash)?.delete(key);
  }
}
