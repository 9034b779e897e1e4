import { Redis } from 'ioredis';

/**
 * An ioredis client that fails fast instead of queueing while disconnected: the limiter must reach its fail mode
 * within its timeout, not wait for a reconnect. It keeps reconnecting in the background.
 */
export function createRedis(url: string, opts: { commandTimeoutMs?: number } = {}): Redis {
  const r = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 500,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(50 * times, 500),
  });
  // Connection errors are reported through command failures and metrics; an unhandled 'error' would crash.
  r.on('error', () => undefined);
  return r;
}

/** Resolves when the client is ready (or rejects after `ms`). */
export function waitReady(r: Redis, ms = 5_000): Promise<void> {
  if (r.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`redis not ready after ${ms} ms`)), ms);
    r.once('ready', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
