/**
 * Clean shutdown: closables are registered in construction order and closed in reverse (the RPC server before the
 * chain thread, the chain thread before the store), on SIGINT/SIGTERM or on demand, within a deadline. A closable
 * that throws is logged and the rest still close; one that hangs past the deadline is abandoned with an error line
 * and the ones after it still get a short grace each, so a stuck server cannot keep the store from closing.
 */
import type { Logger } from '../log/types.ts';

/** Anything with a `close()`; a bare function is accepted too. */
export interface Closable {
  close(): Promise<void> | void;
}

export interface LifecycleOptions {
  /** Deadline for the whole shutdown (default 10 s). */
  timeoutMs?: number;
  /** Time each closable still gets once the deadline has passed (default 1 s). */
  graceMs?: number;
}

export interface LifecycleDeps {
  logger?: Logger;
  /** How to end the process after a signal-driven shutdown (default `process.exit`); injectable for tests. */
  exit?: (code: number) => void;
}

/** How a shutdown went: `ok` when every closable closed in time without error. */
export interface ShutdownReport {
  ok: boolean;
  closed: string[];
  failed: string[];
  timedOut: string[];
}

const TIMEOUT = Symbol('timeout');

/** Owns the shutdown order of one process (one per composition root). */
export class Lifecycle {
  private readonly entries: { name: string; closable: Closable }[] = [];
  private readonly abort = new AbortController();
  private closing: Promise<ShutdownReport> | undefined;
  private readonly timeoutMs: number;
  private readonly graceMs: number;

  constructor(
    { timeoutMs = 10_000, graceMs = 1000 }: LifecycleOptions = {},
    private readonly deps: LifecycleDeps = {},
  ) {
    this.timeoutMs = timeoutMs;
    this.graceMs = graceMs;
  }

  /** Aborted when shutdown starts: pass it down so loops (production, sync) stop taking new work. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Registers a closable; call in construction order. Returns it, so `const x = life.add('x', new X())` reads well. */
  add<T extends Closable | (() => Promise<void> | void)>(name: string, closable: T): T {
    if (this.closing) throw new Error(`lifecycle: cannot add "${name}" during shutdown`);
    const c: Closable = typeof closable === 'function' ? { close: closable as () => Promise<void> | void } : (closable as Closable);
    this.entries.push({ name, closable: c });
    return closable;
  }

  /** Closes everything in reverse order, once (later calls return the same report). */
  close(reason = 'shutdown'): Promise<ShutdownReport> {
    this.closing ??= this.run(reason);
    return this.closing;
  }

  /**
   * On the first of `signals`: shut down, then exit 0 (clean) or 1 (an error or a timeout). A second signal during
   * shutdown exits 1 at once. Returns a function that removes the handlers.
   */
  handleSignals(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): () => void {
    const exit = this.deps.exit ?? ((code: number) => process.exit(code));
    const onSignal = (sig: NodeJS.Signals): void => {
      if (this.closing) {
        this.deps.logger?.error('second signal during shutdown: exiting now', { signal: sig });
        exit(1);
        return;
      }
      this.deps.logger?.info('shutting down', { signal: sig });
      void this.close(sig).then((r) => exit(r.ok ? 0 : 1));
    };
    for (const s of signals) process.on(s, onSignal);
    return () => signals.forEach((s) => process.off(s, onSignal));
  }

  private async run(reason: string): Promise<ShutdownReport> {
    this.abort.abort(reason);
    const deadline = performance.now() + this.timeoutMs;
    const report: ShutdownReport = { ok: true, closed: [], failed: [], timedOut: [] };
    for (const { name, closable } of [...this.entries].reverse()) {
      const budget = Math.max(deadline - performance.now(), this.graceMs);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(() => resolve(TIMEOUT), budget)));
      try {
        const result = await Promise.race([Promise.resolve().then(() => closable.close()), timeout]);
        if (result === TIMEOUT) {
          report.timedOut.push(name);
          this.deps.logger?.error('close timed out; moving on', { closable: name, waited_ms: Math.round(budget) });
        } else {
          report.closed.push(name);
          this.deps.logger?.debug('closed', { closable: name });
        }
      } catch (err) {
        report.failed.push(name);
        this.deps.logger?.error('close failed', { closable: name, err });
      } finally {
        clearTimeout(timer);
      }
    }
    report.ok = report.failed.length === 0 && report.timedOut.length === 0;
    this.deps.logger?.info('shutdown complete', { reason, ...report });
    return report;
  }
}
