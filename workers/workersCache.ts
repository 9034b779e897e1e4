import type { CacheStore } from '../gateway/cache/types.ts';
import { callObject } from './objects/doCall.ts';
import type { DurableObjectNamespace, WorkersCache } from './types.ts';

const SHARDS = 16;
const CACHE_ORIGIN = 'https://gateway-cache.xone.internal/';

function shardOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % SHARDS;
}

/**
 * The gateway's shared cache tier on Workers. Entries that live at least `durableMinTtlMs` (finalized, immutable
 * results) go to FinalCacheObject shards, shared by every location; shorter ones (realtime, unfinalized) go to the
 * Cache API, which is per location. Unfinalized keys include their block hash, so a replaced block's entries are
 * simply never asked for again: evictBlock has nothing to do here (the in-isolate L1 evicts its own).
 */
export class WorkersCacheStore implements CacheStore {
  constructor(
    private readonly cache: WorkersCache,
    private readonly finals: DurableObjectNamespace,
    private readonly durableMinTtlMs: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const hit = await this.cache.match(CACHE_ORIGIN + encodeURIComponent(key));
    if (hit) return hit.text();
    const r = await callObject<{ value: string | null }>(this.finals, `final:${shardOf(key)}`, '/get', { key });
    // Copy a durable hit into this location's cache so the next lookup here skips the object.
    if (r.value !== null) await this.putLocal(key, r.value, 300_000);
    return r.value ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs >= this.durableMinTtlMs) {
      await callObject(this.finals, `final:${shardOf(key)}`, '/set', { key, value, expiresAt: Date.now() + ttlMs });
      return;
    }
    await this.putLocal(key, value, ttlMs);
  }

  private async putLocal(key: string, value: string, ttlMs: number): Promise<void> {
    const maxAge = Math.max(1, Math.floor(ttlMs / 1000));
    await this.cache.put(
      CACHE_ORIGIN + encodeURIComponent(key),
      new Response(value, { headers: { 'cache-control': `max-age=${maxAge}` } }),
    );
  }

  evictBlock(): void {}
}
