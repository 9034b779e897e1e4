/**
 * Tells when a follower has stopped importing, and why. Every await of the follower's loop names itself (`run`); a
 * check at a fixed interval compares our head with the best peer's. A head that has not moved for `stallMs` while a
 * peer serves a heavier chain, or while every peer is dropped (that stops a node as surely), is one `Sync stalled`
 * warning, again every `stallMs` while it lasts, naming the step the loop waits on and each peer's state; one
 * `Sync resumed` line follows once the head moves. A signer stuck at one height in the partition test had left no
 * line saying so.
 */
import type { Logger } from '../log/types.ts';

/** What the follower's loop is doing now. */
export interface SyncStep {
  what: string;
  since: number;
}

/**
 * One check's view of the follower: our head, the heaviest peer above us (if any), whether every peer is dropped (a
 * node that set all its peers aside imports nothing either, however heavy their chains), and each peer's state.
 */
export interface StallView {
  head: { number: bigint; hash: string } | undefined;
  best: { peer: string; number: bigint } | undefined;
  allDropped: boolean;
  peers: () => Record<string, unknown>[];
}

export class StallWatch {
  private step: SyncStep;
  private headHash: string | undefined;
  private headSince: number;
  private warnedAt: number | undefined;

  constructor(
    private readonly stallMs: number,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {
    this.step = { what: 'starting', since: now() };
    this.headSince = now();
  }

  /** Runs `work` as the named step (the step it waits on is what a stall warning names). */
  async run<T>(what: string, work: () => T | PromiseLike<T>): Promise<T> {
    const outer = this.step;
    this.step = { what, since: this.now() };
    try {
      return await work();
    } finally {
      this.step = { what: outer.what, since: this.now() };
    }
  }

  /** Names the step the loop is in until the next `run` or `enter`. */
  enter(what: string): void {
    this.step = { what, since: this.now() };
  }

  /** One check (the follower calls it every few seconds). */
  check(view: StallView): void {
    const t = this.now();
    if (view.head && view.head.hash !== this.headHash) {
      if (this.warnedAt !== undefined) this.log.info('Sync resumed', { head: view.head.number.toString(), stalledMs: t - this.headSince });
      this.headHash = view.head.hash;
      this.headSince = t;
      this.warnedAt = undefined;
      return;
    }
    if ((!view.best && !view.allDropped) || !view.head || t - this.headSince < this.stallMs) return;
    if (this.warnedAt !== undefined && t - this.warnedAt < this.stallMs) return;
    this.warnedAt = t;
    this.log.warn('Sync stalled', {
      head: view.head.number.toString(),
      stalledMs: t - this.headSince,
      ...(view.best ? { bestPeer: view.best.peer, bestPeerHead: view.best.number.toString() } : {}),
      waitingOn: view.allDropped ? 'every peer is dropped' : this.step.what,
      waitingMs: t - this.step.since,
      peers: view.peers(),
    });
  }
}
