/**
 * A cache tier holding serialised JSON-RPC results. `blockHash` tags an entry that belongs to an unfinalized block,
 * so it can be evicted when that block is replaced. Memory (L1), Redis (L2) and later the Workers Cache API.
 */
export interface CacheStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number, blockHash?: string): Promise<void>;
  /** Drops every entry tagged with `blockHash` (entries in a shared tier may instead become unreachable: their keys include the hash). */
  evictBlock(blockHash: string): void;
}
