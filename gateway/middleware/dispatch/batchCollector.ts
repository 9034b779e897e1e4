import { type BatchItem, type ForwardResult, type UpstreamPool } from '../../upstream/pool.ts';

/** How one call reaches the upstreams: `forward` when it needs an upstream, `skip` when it will not (idempotent). */
export interface ForwardSlot {
  forward(method: string, params: unknown, deadlineMs: number, minBlock?: number): Promise<ForwardResult>;
  skip(): void;
}

/** Longest a forwarded call waits for the rest of its batch to decide (a slow shared-cache lookup, say). */
const GATHER_MS = 5;

interface Waiting {
  item: BatchItem;
  resolve: (fr: ForwardResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers the upstream calls of one client batch into one upstream batch (issue #17: a batch of 100 became 100
 * upstream requests). Each call of the batch gets a slot and reports exactly once: it forwards, or it skips (answered
 * from the head or the cache, joined an identical call in flight, or failed first). When every call has reported
 * (or GATHER_MS after the first forward) the gathered calls go out together (UpstreamPool.forwardBatch); calls that
 * may not travel in a batch (transactions, filters, non-idempotent methods) go out alone at once.
 */
export class BatchCollector {
  private outstanding: number;
  private waiting: Waiting[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly pool: UpstreamPool,
    calls: number,
    private readonly deadlineMs: number,
  ) {
    this.outstanding = calls;
  }

  slot(): ForwardSlot {
    let reported = false;
    const report = () => {
      if (reported) return false;
      reported = true;
      return true;
    };
    return {
      forward: (method, params, deadlineMs, minBlock) => {
        if (!report() || !this.pool.canBatch(method)) {
          this.settle();
          return this.pool.forward(method, params, deadlineMs, minBlock);
        }
        const p = new Promise<ForwardResult>((resolve, reject) =>
          this.waiting.push({ item: { method, params, minBlock }, resolve, reject }),
        );
        this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
        this.settle();
        return p;
      },
      skip: () => {
        if (report()) this.settle();
      },
    };
  }

  private settle(): void {
    if (--this.outstanding <= 0) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting.splice(0);
    if (batch.length === 0) return;
    this.pool
      .forwardBatch(
        batch.map((w) => w.item),
        this.deadlineMs,
      )
      .then(
        (results) =>
          batch.forEach((w, i) => {
            const r = results[i] as PromiseSettledResult<ForwardResult>;
            if (r.status === 'fulfilled') w.resolve(r.value);
            else w.reject(r.reason);
          }),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      );
  }
}
