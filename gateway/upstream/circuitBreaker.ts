/** Where a breaker stands: `closed` passes traffic, `open` refuses it, `halfOpen` passes it on trial. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** Options of a circuit breaker. */
export interface BreakerOptions {
  /** Share of failures in the window above which the breaker opens. */
  errorRateThreshold: number;
  /** How long it stays open before traffic is tried again (half-open). */
  openMs: number;
  /** Outcomes kept (the error rate is over these). */
  window?: number;
  /** Fewer outcomes than this never open it. */
  minSamples?: number;
}

/**
 * One upstream's circuit breaker. Closed, it keeps the last `window` outcomes and opens when their failure share passes
 * the threshold; open, it refuses traffic for `openMs`, then turns half-open: one trial request at a time is let
 * through (`admits`/`beginTrial`; the rest go to other upstreams), its success closes it with an empty window, its
 * failure reopens it. A successful health probe closes it at once
 * (`reset`), so an upstream that is back after an outage is routable on the next probe instead of after the failures
 * have scrolled out of the window (issue #17 item 7: 503s for ~17 s after an outage).
 */
export class CircuitBreaker {
  private readonly outcomes: boolean[] = [];
  private failures = 0;
  private openedAt = -1;
  /** When the half-open trial request started (-1: none in flight). */
  private trialAt = -1;
  private readonly window: number;
  private readonly minSamples: number;

  constructor(private readonly opts: BreakerOptions) {
    this.window = opts.window ?? 20;
    this.minSamples = opts.minSamples ?? 5;
  }

  state(now: number): BreakerState {
    if (this.openedAt < 0) return 'closed';
    return now - this.openedAt < this.opts.openMs ? 'open' : 'halfOpen';
  }

  /** Share of failures among the kept outcomes (0 below minSamples). */
  get errorRate(): number {
    return this.outcomes.length < this.minSamples ? 0 : this.failures / this.outcomes.length;
  }

  /** Whether a request may go now: closed yes, open no, half-open only when no trial is in flight. */
  admits(now: number): boolean {
    const state = this.state(now);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    // A trial that never reported (its outcome was lost) stops blocking after another openMs.
    return this.trialAt < 0 || now - this.trialAt >= this.opts.openMs;
  }

  /** Marks the request about to go as the half-open trial (no-op unless half-open). */
  beginTrial(now: number): void {
    if (this.state(now) === 'halfOpen') this.trialAt = now;
  }

  record(ok: boolean, now: number): void {
    const state = this.state(now);
    this.trialAt = -1;
    if (state === 'halfOpen') {
      if (ok) this.reset();
      else this.openedAt = now;
      return;
    }
    this.outcomes.push(ok);
    if (!ok) this.failures++;
    if (this.outcomes.length > this.window && !this.outcomes.shift()) this.failures--;
    if (state === 'closed' && this.errorRate > this.opts.errorRateThreshold) this.openedAt = now;
  }

  /** Closes the breaker with an empty window (a probe just succeeded). */
  reset(): void {
    this.outcomes.length = 0;
    this.failures = 0;
    this.openedAt = -1;
    this.trialAt = -1;
  }
}
