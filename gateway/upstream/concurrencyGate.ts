import pLimit from 'p-limit';

/** Bounds the requests in flight to one upstream. */
export interface ConcurrencyGate {
  /** Requests running. */
  readonly activeCount: number;
  /** Requests past `maxConcurrent` (queued, or on a gate without a queue, running above it). */
  readonly pendingCount: number;
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Drops what is queued (close). */
  clearQueue(): void;
}

/** Builds an upstream's gate from its `maxConcurrent` (the caller refuses new work once `pendingCount` reaches `maxQueued`). */
export type GateFactory = (maxConcurrent: number) => ConcurrencyGate;

/** Node: at most `maxConcurrent` running, the rest wait in a FIFO queue (p-limit) in this process. */
export const queueingGate: GateFactory = (maxConcurrent) => {
  const limit = pLimit(maxConcurrent);
  return {
    get activeCount() {
      return limit.activeCount;
    },
    get pendingCount() {
      return limit.pendingCount;
    },
    run: (fn) => limit(fn),
    clearQueue: () => limit.clearQueue(),
  };
};

/**
 * Workers: no queue. A queued call is started by whichever request frees a slot, so its upstream fetch runs in that
 * other request's I/O context, and the waiting request has nothing of its own pending: workerd cancels it as "the
 * Worker's code had hung" (HTTP 500; 10-20 % of requests at 150 req/s, issue #17) and p-limit's slot is never given
 * back. Here every call starts at once in its own request; calls past `maxConcurrent` count as pending, so the
 * caller's `maxQueued` still bounds what one isolate has in flight.
 */
export const immediateGate: GateFactory = (maxConcurrent) => {
  let active = 0;
  return {
    get activeCount() {
      return Math.min(active, maxConcurrent);
    },
    get pendingCount() {
      return Math.max(0, active - maxConcurrent);
    },
    async run(fn) {
      active++;
      try {
        return await fn();
      } finally {
        active--;
      }
    },
    clearQueue() {},
  };
};
