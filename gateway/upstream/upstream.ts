import type { UpstreamConfig } from '../config/types.ts';
import { CircuitBreaker, type BreakerOptions } from './circuitBreaker.ts';
import { queueingGate, type ConcurrencyGate, type GateFactory } from './concurrencyGate.ts';
import { LatencyWindow } from './latencyWindow.ts';

/** A raw answer from an upstream: HTTP status, the parsed body (if any), and the time it took. */
export interface UpstreamReply {
  status: number;
  body: unknown;
  ms: number;
  retryAfter?: string | null;
}

/** A POST function (the runtime's fetch via webFetch, or a faster one the Node adapter injects); rejects after `timeoutMs`. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<{ status: number; text(): Promise<string>; headers: { get(name: string): string | null } }>;

/** FetchLike over the standard fetch (Workers, or any runtime without a faster client). */
export const webFetch: FetchLike = (url, { timeoutMs, ...init }) => fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });

/** A job refused because the upstream's queue is full (the pool tries another upstream or answers 503). */
export class QueueFullError extends Error {
  constructor(name: string) {
    super(`upstream ${name} queue full`);
    this.name = 'QueueFullError';
  }
}

/**
 * One upstream core node: a concurrency bound with a bounded queue (concurrencyGate.ts; a full queue drops new work at once
 * rather than letting latency grow without bound), a circuit breaker over its recent outcomes, and the health
 * signals the pool chooses by: head number and when it last moved, and eth_syncing.
 */
export class Upstream {
  readonly name: string;
  private readonly limit: ConcurrencyGate;
  readonly breaker: CircuitBreaker;
  /** Durations of its recent successful answers (the hedge delay is a quantile of them). */
  readonly latency = new LatencyWindow();
  head = -1;
  headAt = 0;
  syncing = false;

  constructor(
    readonly config: UpstreamConfig,
    index: number,
    private readonly fetchFn: FetchLike,
    breaker: BreakerOptions = { errorRateThreshold: 0.5, openMs: 2_000 },
    private readonly now: () => number = () => Date.now(),
    gate: GateFactory = queueingGate,
  ) {
    this.name = `u${index}`;
    this.limit = gate(config.maxConcurrent);
    this.breaker = new CircuitBreaker(breaker);
  }

  /** Share of failures among the last requests (0 when fewer than 5 were seen). */
  get errorRate(): number {
    return this.breaker.errorRate;
  }

  /** Requests running plus queued (the pool prefers the least loaded). */
  get load(): number {
    return this.limit.activeCount + this.limit.pendingCount;
  }

  /**
   * Records a head number this upstream reported (newHeads, a block it served: only forward moves count; the probe's
   * eth_blockNumber is `authoritative` and may also move it back, after a node was reset).
   */
  observeHead(n: number, at: number, authoritative = false): void {
    if (n > this.head || (authoritative && n !== this.head)) {
      this.head = n;
      this.headAt = at;
    } else if (this.headAt === 0) this.headAt = at;
  }

  /** Records an outcome in the breaker. */
  record(ok: boolean): void {
    this.breaker.record(ok, this.now());
  }

  /** POSTs a JSON-RPC body; throws on network error, timeout or a full queue. */
  send(body: string, timeoutMs: number): Promise<UpstreamReply> {
    if (this.limit.pendingCount >= this.config.maxQueued) return Promise.reject(new QueueFullError(this.name));
    return this.limit.run(() => this.exec(body, timeoutMs));
  }

  private async exec(body: string, timeoutMs: number): Promise<UpstreamReply> {
    const t0 = performance.now();
    const res = await this.fetchFn(this.config.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      timeoutMs: Math.max(1, Math.min(timeoutMs, this.config.timeoutMs)),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, ms: performance.now() - t0, retryAfter: res.headers.get('retry-after') };
  }

  async close(): Promise<void> {
    this.limit.clearQueue();
  }
}
