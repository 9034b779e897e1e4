/**
 * The follower (`xone run --peer URL`): keeps a local chain in step with one or more peers. It fetches ranges of
 * blocks, checks their framing and links, imports them through the verifying pipeline (seal, parent, roots,
 * execution) in batches of up to `batch` blocks made durable with one `steady()` each (the store's group commit),
 * follows the head from announcements (polling `/status` while no stream is up), unwinds to the common ancestor when
 * a longer peer chain does not extend our head, and drops a peer that serves garbage, with one clear log line.
 * Nothing invalid reaches the store: a block that fails verification is never written, and the verified blocks
 * before it are kept.
 */
import { XoneError } from '../errors.ts';
import { silentLogger } from '../log/capturingLogger.ts';
import type { Logger } from '../log/types.ts';
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { findCommonAncestor } from './ancestor.ts';
import type { BlockRef } from './blockRef.ts';
import { checkRange } from './checkRange.ts';
import { SyncError, isPeerFault } from './errors.ts';
import { resolveFollowerOptions, type FollowerOptions, type ResolvedFollowerOptions } from './options.ts';
import { ProgressMeter, type SyncProgress } from './progress.ts';
import type { HeadSubscription, SyncSource } from './source/interface.ts';
import type { SyncTarget } from './target.ts';
import type { SyncHead } from './wire.ts';

/** Collaborators of the follower. */
export interface FollowerDeps {
  target: SyncTarget;
  sources: readonly SyncSource[];
  logger?: Logger;
  /** Progress every `progressMs` while behind; without it, the follower logs `Sync progress` at info. */
  onProgress?: (p: SyncProgress) => void;
  /** Wall clock in ms (bans), injectable for tests. */
  now?: () => number;
}

/** What the follower knows about one peer. */
interface Peer {
  source: SyncSource;
  head: SyncHead | undefined;
  bannedUntil: number;
  sub: HeadSubscription | undefined;
  lastStatusAt: number;
  unreachable: boolean;
}

/** A peer as reported by `peers()`. */
export interface PeerInfo {
  id: string;
  head: bigint | undefined;
  dropped: boolean;
}

/** Errors that are ours (the store), not the peer's: the follower stops on them. */
function isLocalFailure(err: unknown): boolean {
  return err instanceof XoneError && (err.code.startsWith('STORE_') || err.code.startsWith('NODE_'));
}

/** Follows peers into a SyncTarget. `start()` runs it in the background; `stop()` ends it after the open batch. */
export class Follower {
  private readonly o: ResolvedFollowerOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly peerList: Peer[];
  private readonly meter = new ProgressMeter();
  private head: { number: bigint; hash: Uint8Array } | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    options: FollowerOptions,
    private readonly deps: FollowerDeps,
  ) {
    this.o = resolveFollowerOptions(options);
    this.log = deps.logger ?? silentLogger;
    this.now = deps.now ?? Date.now;
    this.peerList = deps.sources.map((source) => ({
      source,
      head: undefined,
      bannedUntil: 0,
      sub: undefined,
      lastStatusAt: -Infinity,
      unreachable: false,
    }));
  }

  /** Starts following in the background; `done()` settles when it stops (rejects on a local failure). */
  start(): void {
    if (this.loop) return;
    this.loop = this.run();
    this.loop.catch(() => {});
  }

  /** The background loop's end. */
  done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Stops after the current batch is durable; closes the head streams. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const p of this.peerList) p.sub?.close();
    this.wake?.();
    await this.loop?.catch(() => {});
  }

  /** Peers and what we know of them. */
  peers(): PeerInfo[] {
    const t = this.now();
    return this.peerList.map((p) => ({ id: p.source.id, head: p.head?.number, dropped: p.bannedUntil > t }));
  }

  /**
   * Forwards a raw transaction to the first peer that answers (eth_sendRawTransaction on a follower). A refusal
   * (SYNC_TX_REFUSED, the producer's geth text) is passed on; unreachable peers are skipped.
   */
  async submitTx(raw: Uint8Array): Promise<Uint8Array> {
    let last: unknown;
    for (const p of this.peerList) {
      if (p.bannedUntil > this.now()) continue;
      try {
        return await p.source.submitTx(raw);
      } catch (err) {
        if (err instanceof SyncError && err.code === 'SYNC_TX_REFUSED') throw err;
        last = err;
      }
    }
    throw new SyncError('SYNC_PEER_UNREACHABLE', `no peer accepted the transaction${last instanceof Error ? `: ${last.message}` : ''}`);
  }

  /** One pass: refresh peers, then import until level with the best one (tests and one-shot tools). */
  async syncOnce(): Promise<void> {
    this.head ??= await this.deps.target.head();
    await this.refresh(true);
    for (let peer = this.best(); peer && !this.stopped; peer = this.best()) await this.guarded(peer, () => this.syncFrom(peer as Peer));
  }

  private async run(): Promise<void> {
    this.head = await this.deps.target.head();
    this.log.info('Following peers', {
      peers: this.peerList.map((p) => p.source.id),
      head: this.head.number.toString(),
      batch: this.o.batch,
    });
    while (!this.stopped) {
      await this.refresh(false);
      const peer = this.best();
      if (peer) {
        await this.guarded(peer, () => this.syncFrom(peer));
        continue;
      }
      this.report();
      await this.sleep(this.peerList.some((p) => p.sub) ? this.o.idlePollMs : this.o.pollMs);
    }
  }

  /** Asks `/status` of every usable peer whose last answer is older than the poll interval; (re)subscribes heads. */
  private async refresh(force: boolean): Promise<void> {
    const t = this.now();
    await Promise.all(
      this.peerList.map(async (p) => {
        if (p.bannedUntil > t) return;
        if (!force && t - p.lastStatusAt < (p.sub ? this.o.idlePollMs : this.o.pollMs)) return;
        p.lastStatusAt = t;
        await this.guarded(p, async () => {
          const status = await p.source.status();
          p.head = status.head;
          if (p.unreachable) this.log.info('Peer reachable again', { peer: p.source.id, head: status.head.number.toString() });
          p.unreachable = false;
          if (!p.sub && !this.stopped) this.subscribe(p);
        });
      }),
    );
  }

  private subscribe(p: Peer): void {
    p.sub = p.source.heads(
      (h) => {
        p.head = h;
        if (this.head && h.number > this.head.number) this.wake?.();
      },
      (err) => {
        p.sub = undefined;
        if (!this.stopped)
          this.log.info('Head stream ended; polling status', { peer: p.source.id, reason: err?.message ?? 'closed by the peer' });
        this.wake?.();
      },
    );
  }

  /** The live peer with the highest head above ours. */
  private best(): Peer | undefined {
    const t = this.now();
    let best: Peer | undefined;
    for (const p of this.peerList) {
      if (p.bannedUntil > t || !p.head || !this.head || p.head.number <= this.head.number) continue;
      if (!best || (best.head as SyncHead).number < p.head.number) best = p;
    }
    return best;
  }

  /** Runs `fn`; a peer fault drops the peer, an unreachable peer is noted, a local failure propagates. */
  private async guarded(p: Peer, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (isPeerFault(err)) return this.drop(p, err as SyncError);
      if (err instanceof SyncError && err.code === 'SYNC_PEER_UNREACHABLE') {
        if (!p.unreachable) this.log.warn('Peer unreachable', { peer: p.source.id, reason: err.message });
        p.unreachable = true;
        p.head = undefined;
        return;
      }
      if (err instanceof SyncError && err.code === 'SYNC_UNWIND_UNSUPPORTED') {
        this.log.error('Cannot follow peer: reorg needs an unwind the chain service does not support', { peer: p.source.id, ...err.meta });
        p.bannedUntil = this.now() + this.o.banMs;
        return;
      }
      this.log.error('Sync stopped', { error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  private drop(p: Peer, err: SyncError): void {
    this.log.warn('Dropped peer', { peer: p.source.id, code: err.code, reason: err.message, banMs: this.o.banMs });
    p.bannedUntil = this.now() + this.o.banMs;
    p.head = undefined;
    p.sub?.close();
    p.sub = undefined;
  }

  /** Imports from `peer` until level with its head, one range per request, the next range fetched during import. */
  private async syncFrom(peer: Peer): Promise<void> {
    const fetchRange = (from: bigint): Promise<Uint8Array[]> => {
      const want = Number((peer.head as SyncHead).number - from + 1n);
      const promise = peer.source.blocks(from, Math.min(this.o.requestBlocks, want));
      promise.catch(() => {}); // awaited below; this only keeps an abandoned prefetch from being "unhandled"
      return promise;
    };
    let ours = this.head as { number: bigint; hash: Uint8Array };
    let next: Promise<Uint8Array[]> | undefined = fetchRange(ours.number + 1n);
    while (next && !this.stopped && peer.head && ours.number < peer.head.number && peer.bannedUntil <= this.now()) {
      const from = ours.number + 1n;
      const rlps = await next;
      next = undefined;
      const refs = checkRange(peer.source.id, rlps, from, peer.head?.number);
      if (!equalBytes(refs[0].parentHash, ours.hash)) return this.reorg(peer, refs[0]);
      const after = from + BigInt(rlps.length);
      if (peer.head && after <= peer.head.number) next = fetchRange(after);
      await this.importRange(peer, rlps, refs);
      ours = this.head as { number: bigint; hash: Uint8Array };
    }
  }

  /** Imports in chunks of `batch`, each made durable with one `steady()`. */
  private async importRange(peer: Peer, rlps: Uint8Array[], refs: BlockRef[]): Promise<void> {
    const { target } = this.deps;
    for (let i = 0; i < rlps.length; i += this.o.batch) {
      const chunk = rlps.slice(i, i + this.o.batch);
      let done;
      try {
        done = await target.importBlocks(chunk);
      } catch (err) {
        if (isLocalFailure(err)) throw err;
        // The blocks before the invalid one were verified: keep them, durably.
        await target.steady();
        this.head = await target.head();
        const bad = refs[Number(this.head.number - refs[0].number) + 1] ?? refs[i];
        const code = err instanceof XoneError ? err.code : 'UNKNOWN';
        throw new SyncError(
          'SYNC_PEER_BAD_BLOCK',
          `peer ${peer.source.id} served invalid block ${bad.number} ${bytesToHex(bad.hash)}: ${(err as Error).message}`,
          {
            peer: peer.source.id,
            number: bad.number.toString(),
            cause: code,
          },
        );
      }
      await target.steady();
      const last = done[done.length - 1];
      if (last) this.head = { number: last.number, hash: last.hash };
      this.meter.add(
        done.length,
        done.reduce((n, b) => n + b.txHashes.length, 0),
      );
      this.report();
    }
  }

  /**
   * The peer's longer chain does not extend our head: find the common ancestor (ancestor.ts), unwind to it and let
   * the loop import the peer's branch. Gives up (drops the peer) past MAX_REORG_DEPTH.
   */
  private async reorg(peer: Peer, first: BlockRef): Promise<void> {
    const { target } = this.deps;
    const id = peer.source.id;
    const ours = this.head as { number: bigint; hash: Uint8Array };
    const ancestor = await findCommonAncestor(peer.source, target, ours.number, first.parentHash);
    if (!target.unwind)
      throw new SyncError(
        'SYNC_UNWIND_UNSUPPORTED',
        `reorg to ancestor ${ancestor} needed (peer ${id}), but the sync target cannot unwind`,
        {
          peer: id,
          ancestor: ancestor.toString(),
          head: ours.number.toString(),
        },
      );
    this.log.warn('Reorg', { peer: id, from: ours.number.toString(), to: ancestor.toString(), depth: Number(ours.number - ancestor) });
    await target.unwind(ancestor);
    this.head = await target.head();
  }

  /** Emits progress once per interval while behind or importing. */
  private report(): void {
    if (this.meter.elapsedMs() < this.o.progressMs || !this.head) return;
    const t = this.now();
    let target = this.head.number;
    let live = 0;
    for (const p of this.peerList) {
      if (p.bannedUntil > t || !p.head) continue;
      live++;
      if (p.head.number > target) target = p.head.number;
    }
    const p = this.meter.take(this.head.number, target, live);
    if (p.blocksPerSec === 0 && p.head >= p.target) return;
    if (this.deps.onProgress) this.deps.onProgress(p);
    else
      this.log.info('Sync progress', {
        head: p.head.toString(),
        target: p.target.toString(),
        blocksPerSec: p.blocksPerSec,
        txPerSec: p.txPerSec,
        etaSec: p.etaSec,
        peers: p.peers,
      });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }
}
