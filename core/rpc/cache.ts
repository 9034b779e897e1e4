/**
 * LRU of JSON encodings of recent blocks and receipt lists, bounded by entries and by total characters. A block
 * is encoded once (when produced/imported or first asked for) and every later answer splices the stored text, so a
 * full 1,428-transaction block costs a map lookup and a string concatenation instead of an encode.
 */
export class EncodingCache {
  private readonly map = new Map<string, string>();
  private size = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): string | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      // Re-insert to mark as most recently used (Map keeps insertion order).
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, json: string): void {
    if (json.length > this.maxChars) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.size -= old.length;
      this.map.delete(key);
    }
    this.map.set(key, json);
    this.size += json.length;
    while (this.map.size > this.maxEntries || this.size > this.maxChars) {
      const [k, v] = this.map.entries().next().value as [string, string];
      this.map.delete(k);
      this.size -= v.length;
    }
  }

  /** Returns the cached text or computes, stores and returns it. */
  getOrSet(key: string, make: () => string): string {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const json = make();
    this.set(key, json);
    return json;
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

/** Cache key of a block's JSON (by hash hex and transaction detail). */
export const blockKey = (hashHex: string, fullTx: boolean): string => (fullTx ? 'bf' : 'bh') + hashHex;
/** Cache key of a block's receipts JSON. */
export const receiptsKey = (hashHex: string): string => 'r' + hashHex;
