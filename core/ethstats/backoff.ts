/** Reconnect delays: exponential with full jitter, so many nodes restarted together do not reconnect in step. */
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  /** Returns a number in [0, 1); injected by tests. */
  random?: () => number;
}

/**
 * Delay before reconnect attempt `attempt` (0-based): a uniform draw from [minMs/2, cap] where cap doubles per
 * attempt from `minMs` up to `maxMs` ("full jitter", floored at half the minimum so a reconnect is never immediate).
 */
export function backoffDelay(attempt: number, { minMs, maxMs, random = Math.random }: BackoffOptions): number {
  const cap = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  const floor = minMs / 2;
  return Math.round(floor + random() * Math.max(0, cap - floor));
}
