import { GatewayError } from '../rpc/gatewayError.ts';

/**
 * Singleflight: identical in-flight calls share one upstream request. Each waiting caller keeps its own deadline: a
 * follower whose deadline passes gets its own timeout without cancelling the leader or the other followers (eRPC's
 * followers inherit the leader's fate and amplify timeouts).
 */
export class Coalescer<T> {
  private readonly inflight = new Map<string, Promise<T>>();

  /** Runs `fn` for `key` unless the same key is already running; `coalesced` tells the caller it was a follower. */
  async run(key: string, deadlineMs: number, fn: () => Promise<T>): Promise<{ value: T; coalesced: boolean }> {
    const existing = this.inflight.get(key);
    if (existing) return { value: await withDeadline(existing, deadlineMs), coalesced: true };
    const p = fn().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return { value: await withDeadline(p, deadlineMs), coalesced: false };
  }

  /** Number of keys in flight (tests, metrics). */
  get size(): number {
    return this.inflight.size;
  }
}

/** One promise and one timer per waiting caller (Promise.race plus finally cost three more promises per call). */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new GatewayError('timeout', `request timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
