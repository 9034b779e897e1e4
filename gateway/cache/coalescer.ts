import { withDeadline } from '../async/withDeadline.ts';
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
    if (existing) return { value: await withDeadline(existing, deadlineMs, () => timedOut(deadlineMs)), coalesced: true };
    const p = fn().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return { value: await withDeadline(p, deadlineMs, () => timedOut(deadlineMs)), coalesced: false };
  }

  /** True when a call for `key` is in flight (a `run` now would join it, not call its function). */
  has(key: string): boolean {
    return this.inflight.has(key);
  }

  /** Number of keys in flight (tests, metrics). */
  get size(): number {
    return this.inflight.size;
  }
}

const timedOut = (ms: number): GatewayError => new GatewayError('timeout', `request timed out after ${ms} ms`);
