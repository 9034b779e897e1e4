import { RawJson } from './json.ts';

/**
 * LRU of JSON encodings of recent blocks and receipt lists, bounded by entries and by bytes. A block is encoded once
 * (when produced/imported or first asked for) and every later answer splices the stored text, so a full
 * 1,428-transaction block costs a map lookup and a string concatenation instead of an encode. An entry is counted
 * twice its length: the text (one byte per character, JSON being ASCII) and the UTF-8 copy its RawJson keeps once it
 * was written to a socket.
 */
export class EncodingCache {
  /** Entries as RawJson, so one instance (and its UTF-8 bytes, once made) serves every reader of an entry. */
  private readonly map = new Map<string, RawJson>();
  private size = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): string | undefined {
    return this.getRaw(key)?.json;
  }

  /** The cached entry itself (the same instance on every hit). */
  getRaw(key: string): RawJson | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, json: string): RawJson {
    const raw = new RawJson(json);
    if (bytesOf(raw) > this.maxBytes) return raw;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.size -= bytesOf(old);
      this.map.delete(key);
    }
    this.map.set(key, raw);
    this.size += bytesOf(raw);
    while (this.map.size > this.maxEntries || this.size > this.maxBytes) {
      const [k, v] = this.map.entries().next().value as [string, RawJson];
      this.map.delete(k);
      this.size -= bytesOf(v);
    }
    return raw;
  }

  /** Returns the cached text or computes, stores and returns it. */
  getOrSet(key: string, make: () => string): string {
    return this.getOrSetRaw(key, make).json;
  }

  /** Like getOrSet, returning the cached entry. */
  getOrSetRaw(key: string, make: () => string): RawJson {
    return this.getRaw(key) ?? this.set(key, make());
  }

  /** Drops every entry (benchmarks; a reorg deeper than the cache). */
  clear(): void {
    this.map.clear();
    this.size = 0;
  }

  get entries(): number {
    return this.map.size;
  }
}

/** What an entry may keep alive: its text and the UTF-8 copy of it. */
const bytesOf = (raw: RawJson): number => raw.json.length * 2;

/** Cache key of a block's JSON (by hash hex and transaction detail). */
export const blockKey = (hashHex: string, fullTx: boolean): string => (fullTx ? 'bf' : 'bh') + hashHex;
/** Cache key of a block's receipts JSON. */
export const receiptsKey = (hashHex: string): string => 'r' + hashHex;
