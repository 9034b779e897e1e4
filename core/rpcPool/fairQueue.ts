/**
 * The pool's waiting room: one FIFO per client, a cap on how many jobs each client may have running, and bounds on
 * how many may wait (per client and in all). The next job to start comes from the client with the fewest jobs
 * running, ties going to the client served longest ago, so a client flooding the pool gets its share and no more:
 * another client's job waits at most for the next free worker.
 */

/** Why `offer` refused a job. */
export type Refusal = 'client-queue-full' | 'queue-full';

interface ClientState<T> {
  queue: T[];
  running: number;
  /** Sequence number of this client's last start (0 = never). */
  lastStart: number;
}

export class FairQueue<T> {
  private readonly clients = new Map<string, ClientState<T>>();
  private queued = 0;
  private starts = 0;

  constructor(private readonly limits: { perClientRunning: number; perClientQueued: number; maxQueued: number }) {}

  /** Jobs waiting. */
  get length(): number {
    return this.queued;
  }

  /** Queues `job` for `client`, or says why not. */
  offer(client: string, job: T): Refusal | undefined {
    const c = this.state(client);
    if (c.queue.length >= this.limits.perClientQueued) return 'client-queue-full';
    if (this.queued >= this.limits.maxQueued) return 'queue-full';
    c.queue.push(job);
    this.queued++;
    return undefined;
  }

  /** Takes a waiting job back out (cancelled); false when it was not waiting. */
  remove(client: string, job: T): boolean {
    const c = this.clients.get(client);
    const i = c ? c.queue.indexOf(job) : -1;
    if (!c || i < 0) return false;
    c.queue.splice(i, 1);
    this.queued--;
    this.forget(client, c);
    return true;
  }

  /**
   * The next job to start (counted as running for its client), or undefined when none may start; with `only`, the
   * next among the clients it accepts.
   */
  take(only?: (client: string) => boolean): { client: string; job: T } | undefined {
    let best: [string, ClientState<T>] | undefined;
    for (const entry of this.clients) {
      const c = entry[1];
      if (c.queue.length === 0 || c.running >= this.limits.perClientRunning) continue;
      if (only && !only(entry[0])) continue;
      if (!best || c.running < best[1].running || (c.running === best[1].running && c.lastStart < best[1].lastStart)) best = entry;
    }
    if (!best) return undefined;
    const [client, c] = best;
    const job = c.queue.shift() as T;
    this.queued--;
    c.running++;
    c.lastStart = ++this.starts;
    return { client, job };
  }

  /** A job of `client` that `take` handed out has finished (or was abandoned). */
  finished(client: string): void {
    const c = this.clients.get(client);
    if (!c) return;
    c.running--;
    this.forget(client, c);
  }

  /** A job `take` handed out that did not start after all: first in its client's line again, no longer running. */
  putBack(client: string, job: T): void {
    const c = this.state(client);
    c.queue.unshift(job);
    this.queued++;
    c.running--;
  }

  /** Waiting jobs that could start now (their client is under its running cap). */
  startable(): number {
    let n = 0;
    for (const c of this.clients.values()) n += Math.max(0, Math.min(c.queue.length, this.limits.perClientRunning - c.running));
    return n;
  }

  /** Every waiting job, taken out (shutdown). */
  drain(): T[] {
    const out: T[] = [];
    for (const [client, c] of this.clients) {
      out.push(...c.queue.splice(0));
      this.forget(client, c);
    }
    this.queued = 0;
    return out;
  }

  /** Jobs `client` has running. */
  running(client: string): number {
    return this.clients.get(client)?.running ?? 0;
  }

  private state(client: string): ClientState<T> {
    let c = this.clients.get(client);
    if (!c) {
      c = { queue: [], running: 0, lastStart: 0 };
      this.clients.set(client, c);
    }
    return c;
  }

  /** Drops an idle client's entry, so the map holds only clients with work (no growth with one-off clients). */
  private forget(client: string, c: ClientState<T>): void {
    if (c.queue.length === 0 && c.running <= 0) this.clients.delete(client);
  }
}
