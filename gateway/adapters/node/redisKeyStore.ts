import type { Redis } from 'ioredis';
import { KeyStoreUnavailableError, type ApiKeyRecord, type KeyStore } from '../../keys/types.ts';
import { createRedis } from './redisClient.ts';

/** A Redis command's failure (refused connection, command timeout) as the store being unreachable. */
async function reach<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (err) {
    throw new KeyStoreUnavailableError(err);
  }
}

/**
 * Key records in Redis (`<prefix>key:<id>` → JSON, ids in the set `<prefix>keys`). Every write publishes the id on
 * `<prefix>keys:changed`; every instance subscribes (its own connection) and drops the id from its key cache, so a
 * revocation reaches all instances within one pub/sub hop.
 */
export class RedisKeyStore implements KeyStore {
  private readonly listeners: ((id: string) => void)[] = [];
  private sub: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly url?: string,
  ) {}

  private get channel(): string {
    return `${this.prefix}keys:changed`;
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const raw = await reach(this.redis.get(`${this.prefix}key:${id}`));
    return raw ? (JSON.parse(raw) as ApiKeyRecord) : undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await reach(
      this.redis.multi().set(`${this.prefix}key:${record.id}`, JSON.stringify(record)).sadd(`${this.prefix}keys`, record.id).exec(),
    );
    await reach(this.redis.publish(this.channel, record.id));
  }

  async list(): Promise<ApiKeyRecord[]> {
    const ids = await reach(this.redis.smembers(`${this.prefix}keys`));
    if (ids.length === 0) return [];
    const raws = await reach(this.redis.mget(ids.map((id) => `${this.prefix}key:${id}`)));
    return raws.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as ApiKeyRecord);
  }

  onInvalidate(listener: (id: string) => void): void {
    this.listeners.push(listener);
    if (this.sub || !this.url) return;
    // Subscriber connection (it only receives). SUBSCRIBE is sent on every 'ready', not once: a first one sent while
    // Redis was down fails (no retries per request) and ioredis re-subscribes only channels it once subscribed, so an
    // instance started during an outage never heard a revocation (issue #17 item 3). SUBSCRIBE again is a no-op.
    const sub = createRedis(this.url);
    this.sub = sub;
    sub.on('ready', () => void sub.subscribe(this.channel).catch(() => undefined));
    sub.on('message', (_channel: string, id: string) => {
      for (const l of this.listeners) l(id);
    });
  }

  async close(): Promise<void> {
    this.sub?.disconnect();
  }
}
