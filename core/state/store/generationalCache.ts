/**
 * A cache bounded by bytes, in two generations: entries go into the young generation; when the next entry would take
 * its estimated bytes past half the budget it becomes the old one (the previous old generation is dropped whole) and a new young one starts.
 * A hit in the old generation moves the entry back to the young one, so what is read block after block (the upper
 * trie levels, recurring senders) survives every turnover, and what was read once ages out within two. Memory stays
 * under the budget without per-entry bookkeeping (an LRU list would cost an object per entry), and a turnover is
 * O(1). Sizes are estimates of what an entry keeps alive on the V8 heap (see each cache's `sizeOf`), so the budget is
 * in real bytes, not entries: a follower's RSS must not depend on how many accounts a block touches (issue #18).
 */

/** The map operations a generation needs (Map, or the hash-keyed HashMap). */
export interface GenerationMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): boolean;
  clear(): void;
  readonly size: number;
}

/** Counters of a cache, for diagnostics and tests. */
export interface CacheStats {
  entries: number;
  bytes: number;
  budget: number;
  hits: number;
  misses: number;
  turnovers: number;
}

export class GenerationalCache<K, V> {
  private young: GenerationMap<K, V>;
  private old: GenerationMap<K, V>;
  private youngBytes = 0;
  private oldBytes = 0;
  private hits = 0;
  private misses = 0;
  private turnovers = 0;

  /**
   * `budgetBytes` bounds both generations together; `sizeOf` estimates what one entry keeps alive; `makeMap` makes an
   * empty generation. Values must not change size once cached (`sizeOf` is asked again when they leave).
   */
  constructor(
    readonly budgetBytes: number,
    private readonly sizeOf: (key: K, value: V) => number,
    private readonly makeMap: () => GenerationMap<K, V>,
  ) {
    if (!(budgetBytes > 0)) throw new RangeError(`cache budget must be > 0 bytes, got ${budgetBytes}`);
    this.young = makeMap();
    this.old = makeMap();
  }

  get(key: K): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) {
      this.hits++;
      return young;
    }
    const old = this.old.get(key);
    if (old === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.old.delete(key);
    this.oldBytes -= this.sizeOf(key, old);
    this.add(key, old);
    return old;
  }

  set(key: K, value: V): void {
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.oldBytes -= this.sizeOf(key, old);
    }
    const prev = this.young.get(key);
    if (prev !== undefined) this.youngBytes -= this.sizeOf(key, prev);
    this.add(key, value);
  }

  delete(key: K): void {
    const young = this.young.get(key);
    if (young !== undefined) {
      this.young.delete(key);
      this.youngBytes -= this.sizeOf(key, young);
    }
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.oldBytes -= this.sizeOf(key, old);
    }
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
    this.youngBytes = 0;
    this.oldBytes = 0;
  }

  stats(): CacheStats {
    return {
      entries: this.young.size + this.old.size,
      bytes: this.youngBytes + this.oldBytes,
      budget: this.budgetBytes,
      hits: this.hits,
      misses: this.misses,
      turnovers: this.turnovers,
    };
  }

  /** Adds to the young generation, turning over first when the entry would take it past half the budget. */
  private add(key: K, value: V): void {
    const size = this.sizeOf(key, value);
    if (this.young.size > 0 && (this.youngBytes + size) * 2 > this.budgetBytes) this.turnover();
    this.young.set(key, value);
    this.youngBytes += size;
  }

  private turnover(): void {
    const dropped = this.old;
    dropped.clear();
    this.old = this.young;
    this.oldBytes = this.youngBytes;
    this.young = dropped;
    this.youngBytes = 0;
    this.turnovers++;
  }
}
