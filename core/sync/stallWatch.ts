/**
 * Tells when a follower has stopped importing while a peer serves a heavier chain, and what it was waiting on then.
 * Every await of the follower's loop names itself (`step`); a check at a fixed interval compares our head with the
 * best peer's: a head that has not moved for `stallMs` while a peer is heavier is one `Sync stalled` warning (again
 * every `stallMs` while it lasts, with the step it waits on and since when), and one `Sync resumed` line once the head
 * moves. Without it, a node stuck at one height says nothing (the partition test's start-up flake).
 */
import type { Logger } from '../log/types.ts';

/** What the follower's loop is doing now. */
export interface SyncStep {
  what: string;
  since: number;
}

/** One check's view of the follower: our head, the heaviest peer above us (if any), and each peer's state. */
export interface StallView {
  head: { number: bigint; hash: string } | undefined;
  best: { peer: string; number: bigint } | undefined;
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
    if (!view.best || !view.head || t - this.headSince < this.stallMs) return;
    if (this.warnedAt !== undefined && t - this.warnedAt < this.stallMs) return;
    this.warnedAt = t;
    this.log.warn('Sync stalled', {
      head: view.head.number.toString(),
      stalledMs: t - this.headSince,
      bestPeer: view.best.peer,
      bestPeerHead: view.best.number.toString(),
      waitingOn: this.step.what,
      waitingMs: t - this.step.since,
      peers: view.peers(),
    });
  }
}
