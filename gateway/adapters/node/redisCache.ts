import type { Redis } from 'ioredis';
import type { CacheStore } from '../../cache/types.ts';

/**
 * The shared L2 cache tier. Unfinalized entries are not indexed by block here: their keys contain the block hash,
 * so once the tracker maps that height to the new hash they are unreachable, and their TTL removes them.
 */
export class RedisCache implements CacheStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, value, 'PX', Math.ceil(ttlMs));
  }

  evictBlock(): void {}
}
