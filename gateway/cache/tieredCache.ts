import type { MemoryCache } from './memoryCache.ts';
import type { CacheStore } from './types.ts';

/** L1 in-process LRU in front of an optional shared L2 (Redis). A hit in L2 is copied into L1 for a short time. */
export class TieredCache implements CacheStore {
  constructor(
    private readonly l1: MemoryCache,
    private readonly l2: CacheStore | undefined,
    private readonly l1CopyTtlMs = 5_000,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const v = this.l1.getSync(key);
    if (v !== undefined || !this.l2) return v;
    try {
      const shared = await this.l2.get(key);
      if (shared !== undefined) await this.l1.set(key, shared, this.l1CopyTtlMs);
      return shared;
    } catch {
      return undefined;
    }
  }

  /** L1 lookup without touching L2 (the synchronous fast path). */
  getLocal(key: string): string | undefined {
    return this.l1.getSync(key);
  }

  async set(key: string, value: string, ttlMs: number, blockHash?: string): Promise<void> {
    await this.l1.set(key, value, ttlMs, blockHash);
    // Not awaited: the caller already has its answer, and a shared-tier failure must not fail it.
    void this.l2?.set(key, value, ttlMs, blockHash).catch(() => undefined);
  }

  evictBlock(blockHash: string): void {
    this.l1.evictBlock(blockHash);
    this.l2?.evictBlock(blockHash);
  }
}
