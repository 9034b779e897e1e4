/**
 * A map keyed by 32-byte hashes without turning each hash into a hex string: the key is 30 bits of the hash (a small
 * integer V8 hashes for free), each bucket holds the entries whose hashes share them, compared in full. The trie node
 * buffer and read cache look up thousands of hashes per block; hex keys were the larger part of that cost.
 */
import { equalBytes } from '../../primitives/hex.ts';

type Entry<V> = { hash: Uint8Array; value: V };

function bucketOf(h: Uint8Array): number {
  return (((h[0] as number) << 22) | ((h[1] as number) << 14) | ((h[2] as number) << 6) | ((h[3] as number) >> 2)) >>> 0;
}

/** Hash → value map (hash bytes must not be mutated after insertion). */
export class HashMap<V> {
  private readonly buckets = new Map<number, Entry<V> | Entry<V>[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(hash: Uint8Array): V | undefined {
    const b = this.buckets.get(bucketOf(hash));
    if (b === undefined) return undefined;
    if (!Array.isArray(b)) return equalBytes(b.hash, hash) ? b.value : undefined;
    for (const e of b) if (equalBytes(e.hash, hash)) return e.value;
    return undefined;
  }

  set(hash: Uint8Array, value: V): void {
    const k = bucketOf(hash);
    const b = this.buckets.get(k);
    if (b === undefined) {
      this.buckets.set(k, { hash, value });
      this.count++;
      return;
    }
    if (!Array.isArray(b)) {
      if (equalBytes(b.hash, hash)) b.value = value;
      else {
        this.buckets.set(k, [b, { hash, value }]);
        this.count++;
      }
      return;
    }
    for (const e of b) {
      if (equalBytes(e.hash, hash)) {
        e.value = value;
        return;
      }
    }
    b.push({ hash, value });
    this.count++;
  }

  delete(hash: Uint8Array): boolean {
    const k = bucketOf(hash);
    const b = this.buckets.get(k);
    if (b === undefined) return false;
    if (!Array.isArray(b)) {
      if (!equalBytes(b.hash, hash)) return false;
      this.buckets.delete(k);
      this.count--;
      return true;
    }
    const i = b.findIndex((e) => equalBytes(e.hash, hash));
    if (i < 0) return false;
    b.splice(i, 1);
    if (b.length === 1) this.buckets.set(k, b[0] as Entry<V>);
    this.count--;
    return true;
  }

  clear(): void {
    this.buckets.clear();
    this.count = 0;
  }

  *entries(): Generator<[Uint8Array, V]> {
    for (const b of this.buckets.values()) {
      if (Array.isArray(b)) for (const e of b) yield [e.hash, e.value];
      else yield [b.hash, b.value];
    }
  }
}
