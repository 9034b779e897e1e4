import Bottleneck from 'bottleneck';
import type { UpstreamConfig } from '../config/types.ts';

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

const WINDOW = 20;

/**
 * One upstream core node: a Bottleneck limiter bounding its concurrency and queue (a full queue drops new work at
 * once rather than letting latency grow without bound), and the health signals the pool chooses by: head number
 * and when it last moved, eth_syncing, and the error rate over the last 20 requests.
 */
export class Upstream {
  readonly name: string;
  private readonly limiter: Bottleneck;
  head = -1;
  headAt = 0;
  syncing = false;
  private readonly outcomes: boolean[] = [];
  /** Requests on the wire now (fast path and Bottleneck path together). */
  private active = 0;

  constructor(
    readonly config: UpstreamConfig,
    index: number,
    private readonly fetchFn: FetchLike,
  ) {
    this.name = `u${index}`;
    this.limiter = new Bottleneck({
      maxConcurrent: config.maxConcurrent,
      highWater: config.maxQueued,
      strategy: Bottleneck.strategy.OVERFLOW,
    });
  }

  /** Share of failures among the last requests (0 when fewer than 5 were seen). */
  get errorRate(): number {
    if (this.outcomes.length < 5) return 0;
    return this.outcomes.filter((ok) => !ok).length / this.outcomes.length;
  }

  /** Requests running plus queued (the pool prefers the least loaded). */
  get load(): number {
    return this.active + this.limiter.queued();
  }

  /** Records an outcome in the error-rate window. */
  record(ok: boolean): void {
    this.outcomes.push(ok);
    if (this.outcomes.length > WINDOW) this.outcomes.shift();
  }

  /**
   * POSTs a JSON-RPC body; throws on network error, timeout or a dropped (overflowing) job. Below the concurrency
   * bound with nothing queued the request goes straight out; otherwise it waits in Bottleneck's queue. Bottleneck
   * costs at least one timer turn (>= 1 ms) per job, measured, so the uncontended path skips it
   * (docs/decisions, "gateway upstream fast path"). While requests queue, up to 2 x maxConcurrent can briefly be on
   * the wire: those admitted directly finish while Bottleneck starts its own.
   */
  async send(body: string, timeoutMs: number): Promise<UpstreamReply> {
    if (this.active < this.config.maxConcurrent && this.limiter.queued() === 0) return this.exec(body, timeoutMs);
    return this.limiter.schedule(() => this.exec(body, timeoutMs));
  }

  private async exec(body: string, timeoutMs: number): Promise<UpstreamReply> {
    this.active++;
    try {
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
    } finally {
      this.active--;
    }
  }

  async close(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true });
  }
}
