/**
 * The follower (`xone run --peer URL`, several allowed): keeps a local chain in step with the heaviest chain any peer
 * serves. It polls every peer's `/status` in the background and follows their head announcements; the best peer is
 * the one whose chain weighs the most (total difficulty) above ours. From it the follower fetches ranges of blocks,
 * checks their framing and links, and hands them to the target, which verifies everything (seal, parent, roots,
 * execution) and applies fork choice itself: a peer chain that forks below our head is fetched from the common
 * ancestor on, stored as a side chain, and becomes our chain inside the target (one durable reorg) once it weighs
 * more. Batches of up to `batch` blocks are made durable with one `steady()` each (the store's group commit).
 *
 * A peer that serves garbage is dropped with one clear log line; one that does not answer is retried at the next
 * poll; one that keeps claiming a heavier chain it does not deliver is dropped after `MAX_STRIKES` tries. Nothing
 * invalid reaches the store: a block that fails verification is never written, and the verified blocks before it
 * are kept.
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
import { StallWatch } from './stallWatch.ts';
import type { HeadSubscription, SyncSource } from './source/interface.ts';
import type { SyncTarget, TargetHead } from './target.ts';
import type { SyncHead } from './wire.ts';

/** Tries without progress (a peer claiming more than it delivers, or timing out on `/blocks`) before a drop. */
export const MAX_STRIKES = 3;

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
  /** A `/status` request is under way. */
  polling: Promise<void> | undefined;
  unreachable: boolean;
  strikes: number;
}

/** A peer as reported by `peers()`. */
export interface PeerInfo {
  id: string;
  head: bigint | undefined;
  dropped: boolean;
}

/** Errors that are ours (the store), not the peer's: the follower stops on them. */
function isLocalFailure(err: unknown): boolean {
  return (
    err instanceof XoneError && (err.code.startsWith('STORE_') || err.code.startsWith('NODE_') || err.code.startsWith('CHAIN_THREAD_'))
  );
}

/** Whether `peer`'s head is a chain heavier than ours (by total difficulty; by height when either side lacks it). */
function heavier(peer: SyncHead, ours: TargetHead): boolean {
  if (peer.td !== undefined && ours.td !== undefined) return peer.td > ours.td;
  return peer.number > ours.number;
}

/** Follows peers into a SyncTarget. `start()` runs it in the background; `stop()` ends it after the open batch. */
export class Follower {
  private readonly o: ResolvedFollowerOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly peerList: Peer[];
  private readonly meter = new ProgressMeter();
  private head: TargetHead | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** Names each await of the loop and warns when the head stops moving while a peer is heavier. */
  private readonly watch: StallWatch;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    options: FollowerOptions,
    private readonly deps: FollowerDeps,
  ) {
    this.o = resolveFollowerOptions(options);
    this.log = deps.logger ?? silentLogger;
    this.now = deps.now ?? Date.now;
    this.watch = new StallWatch(this.o.stallMs, this.log, this.now);
    this.peerList = deps.sources.map((source) => ({
      source,
      head: undefined,
      bannedUntil: 0,
      sub: undefined,
      lastStatusAt: -Infinity,
      polling: undefined,
      unreachable: false,
      strikes: 0,
    }));
  }

  /** Starts following in the background; `done()` settles when it stops (rejects on a local failure). */
  start(): void {
    if (this.loop) return;
    this.stallTimer = setInterval(() => this.checkStall(), Math.max(100, Math.min(5_000, this.o.stallMs / 3)));
    this.stallTimer.unref();
    this.loop = this.run();
    this.loop.catch(() => {});
    void this.loop.finally(() => clearInterval(this.stallTimer));
  }

  /** The background loop's end. */
  done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Stops after the current batch is durable; closes the head streams. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.stallTimer);
    for (const p of this.peerList) p.sub?.close();
    this.wake?.();
    await this.loop?.catch(() => {});
  }

  /** Peers and what we know of them. */
  peers(): PeerInfo[] {
    const t = this.now();
    return this.peerList.map((p) => ({ id: p.source.id, head: p.head?.number, dropped: p.bannedUntil > t }));
  }

  /** Peers not dropped and answering. */
  livePeers(): number {
    const t = this.now();
    return this.peerList.filter((p) => p.bannedUntil <= t && p.head !== undefined).length;
  }

  /** Our head changed outside the follower (a block we sealed, a reorg): peers are compared with it from now on. */
  noteHead(head: TargetHead): void {
    this.head = head;
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

  /** Hands a raw transaction to every live peer, answers ignored (a signer shares what its own pool accepted). */
  broadcastTx(raw: Uint8Array): void {
    const t = this.now();
    for (const p of this.peerList) if (p.bannedUntil <= t && !p.unreachable) p.source.submitTx(raw).catch(() => {});
  }

  /** One pass: refresh peers, then import until level with the best one (tests and one-shot tools). */
  async syncOnce(): Promise<void> {
    this.head ??= await this.deps.target.head();
    await this.refresh(true, true);
    for (let peer = this.best(); peer && !this.stopped; peer = this.best()) await this.guarded(peer, () => this.syncFrom(peer as Peer));
  }

  /** The stall check: our head, the heaviest peer above it, and what we know of every peer. */
  private checkStall(): void {
    const best = this.best();
    const t = this.now();
    this.watch.check({
      head: this.head && { number: this.head.number, hash: bytesToHex(this.head.hash) },
      best: best?.head && { peer: best.source.id, number: best.head.number },
      allDropped: this.peerList.length > 0 && this.peerList.every((p) => p.bannedUntil > t),
      peers: () =>
        this.peerList.map((p) => ({
          peer: p.source.id,
          head: p.head?.number.toString(),
          ...(p.unreachable ? { unreachable: true } : {}),
          ...(p.bannedUntil > t ? { droppedForMs: p.bannedUntil - t } : {}),
          stream: p.sub !== undefined,
          strikes: p.strikes,
        })),
    });
  }

  private async run(): Promise<void> {
    this.head = await this.watch.run('reading our head', () => this.deps.target.head());
    this.log.info('Following peers', {
      peers: this.peerList.map((p) => p.source.id),
      head: this.head.number.toString(),
      batch: this.o.batch,
    });
    // The first round of answers before choosing a peer; later rounds run in the background (a silent peer's
    // deadline must not hold up the others).
    await this.watch.run('the first status round', () => this.refresh(true, true));
    while (!this.stopped) {
      void this.refresh(false, false);
      const peer = this.best();
      if (peer) {
        await this.guarded(peer, () => this.syncFrom(peer));
        continue;
      }
      this.report();
      this.watch.enter('waiting for a heavier peer head');
      // A peer without a head stream (unreachable, or cut off by a partition) is polled every pollMs, so a healed
      // link is noticed within a poll even while other peers' streams are up.
      const t = this.now();
      const unstreamed = this.peerList.some((p) => !p.sub && p.bannedUntil <= t);
      await this.sleep(unstreamed ? this.o.pollMs : this.o.idlePollMs);
    }
  }

  /**
   * Asks `/status` of every usable peer whose last answer is older than the poll interval and that has no request
   * under way; (re)subscribes heads. With `wait`, resolves when those answers are in.
   */
  private async refresh(force: boolean, wait: boolean): Promise<void> {
    const t = this.now();
    const started: Promise<void>[] = [];
    for (const p of this.peerList) {
      if (p.bannedUntil > t || p.polling) continue;
      if (!force && t - p.lastStatusAt < (p.sub ? this.o.idlePollMs : this.o.pollMs)) continue;
      p.lastStatusAt = t;
      p.polling = this.guarded(p, async () => {
        const status = await p.source.status();
        p.head = status.head;
        if (p.unreachable) this.log.info('Peer reachable again', { peer: p.source.id, head: status.head.number.toString() });
        p.unreachable = false;
        if (!p.sub && !this.stopped) this.subscribe(p);
        if (this.head && heavier(status.head, this.head)) this.wake?.();
      })
        .catch(() => {})
        .finally(() => {
          p.polling = undefined;
          p.lastStatusAt = this.now();
        });
      started.push(p.polling);
    }
    if (wait) await Promise.all(started);
  }

  private subscribe(p: Peer): void {
    p.sub = p.source.heads(
      (h) => {
        p.head = h;
        if (this.head && heavier(h, this.head)) this.wake?.();
      },
      (err) => {
        p.sub = undefined;
        if (!this.stopped)
          this.log.info('Head stream ended; polling status', { peer: p.source.id, reason: err?.message ?? 'closed by the peer' });
        this.wake?.();
      },
    );
  }

  /** The live peer whose chain weighs the most, if it weighs more than ours. */
  private best(): Peer | undefined {
    const t = this.now();
    let best: Peer | undefined;
    for (const p of this.peerList) {
      if (p.bannedUntil > t || !p.head || !this.head || !heavier(p.head, this.head)) continue;
      if (!best || heavier(p.head, best.head as SyncHead)) best = p;
    }
    return best;
  }

  /** Runs `fn`; a peer fault drops the peer, an unreachable or slow peer is noted, a local failure propagates. */
  private async guarded(p: Peer, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (isPeerFault(err)) return this.drop(p, err as SyncError);
      if (err instanceof SyncError && (err.code === 'SYNC_PEER_UNREACHABLE' || err.code === 'SYNC_PEER_TIMEOUT')) {
        if (!p.unreachable) this.log.warn('Peer unreachable', { peer: p.source.id, reason: err.message });
        p.unreachable = true;
        p.head = undefined;
        // A peer that answers its status but never its blocks is given up on after a few tries.
        if (err.code === 'SYNC_PEER_TIMEOUT' && err.meta.what === 'blocks') this.strike(p, err);
        return;
      }
      if (isLocalFailure(err) || !(err instanceof XoneError)) {
        this.log.error('Sync stopped', { error: err instanceof Error ? err.message : String(err) });
        throw err;
      }
      // Anything else the chain refused from this peer (a fork deeper than side chains are kept, …): set it aside.
      this.drop(p, new SyncError('SYNC_PEER_BAD_BLOCK', `peer ${p.source.id}: ${err.message}`, { peer: p.source.id, cause: err.code }));
    }
  }

  private strike(p: Peer, err: SyncError): void {
    p.strikes++;
    if (p.strikes >= MAX_STRIKES) this.drop(p, err);
  }

  private drop(p: Peer, err: SyncError): void {
    this.log.warn('Dropped peer', { peer: p.source.id, code: err.code, reason: err.message, banMs: this.o.banMs });
    p.bannedUntil = this.now() + this.o.banMs;
    p.head = undefined;
    p.strikes = 0;
    p.sub?.close();
    p.sub = undefined;
  }

  /**
   * Fetches `peer`'s chain from where it leaves ours and imports it, one range per request, the next range fetched
   * during import. A range whose first block does not link to what we have locates the fork first (the common
   * ancestor, at most MAX_REORG_DEPTH below) and goes on from there.
   */
  private async syncFrom(peer: Peer): Promise<void> {
    const target = peer.head as SyncHead;
    // Our head may have moved since the peer was chosen (a block we sealed, another peer's): compare afresh.
    this.head = await this.watch.run('reading our head', () => this.deps.target.head());
    if (!heavier(target, this.head)) return;
    const fetchRange = (from: bigint): Promise<Uint8Array[]> => {
      const want = Number(target.number - from + 1n);
      const promise = peer.source.blocks(from, Math.max(1, Math.min(this.o.requestBlocks, want)));
      promise.catch(() => {}); // awaited below; this only keeps an abandoned prefetch from being "unhandled"
      return promise;
    };
    const ours = this.head as TargetHead;
    // A heavier chain that is not longer forks at or below its own head: look for the fork from there.
    let cursor: { number: bigint; hash: Uint8Array } =
      target.number <= ours.number ? await this.forkPoint(peer, target.number, target.hash) : { number: ours.number, hash: ours.hash };
    const headBefore = ours.hash;
    let next: Promise<Uint8Array[]> | undefined = cursor.number < target.number ? fetchRange(cursor.number + 1n) : undefined;
    while (next && !this.stopped && peer.bannedUntil <= this.now()) {
      const from = cursor.number + 1n;
      const rlps = await this.watch.run(`blocks from ${from} of ${peer.source.id}`, () => next as Promise<Uint8Array[]>);
      next = undefined;
      const refs = checkRange(peer.source.id, rlps, from, target.number);
      if (!equalBytes(refs[0].parentHash, cursor.hash)) {
        cursor = await this.forkPoint(peer, cursor.number, refs[0].parentHash);
        next = fetchRange(cursor.number + 1n);
        continue;
      }
      const after = from + BigInt(rlps.length);
      if (after <= target.number) next = fetchRange(after);
      await this.watch.run(`importing blocks ${from}-${refs[refs.length - 1].number} of ${peer.source.id}`, () =>
        this.importRange(peer, rlps, refs),
      );
      const last = refs[refs.length - 1];
      cursor = { number: last.number, hash: last.hash };
    }
    this.head = await this.watch.run('reading our head', () => this.deps.target.head());
    if (equalBytes(this.head.hash, headBefore) && peer.head && heavier(peer.head, this.head)) {
      // We hold its chain and still weigh more or as much: it claims a weight its blocks do not have.
      this.strike(
        peer,
        new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${peer.source.id} claims a heavier chain than the blocks it serves`, {
          peer: peer.source.id,
          td: String(peer.head.td),
        }),
      );
    } else if (!equalBytes(this.head.hash, headBefore)) peer.strikes = 0;
  }

  /** Our newest block shared with `peer`'s chain, whose block at `height` has hash `hash`. */
  private async forkPoint(peer: Peer, height: bigint, hash: Uint8Array): Promise<{ number: bigint; hash: Uint8Array }> {
    const ancestor = await this.watch.run(`the fork point with ${peer.source.id} below ${height}`, () =>
      findCommonAncestor(peer.source, this.deps.target, height, hash),
    );
    const ancestorHash = (await this.deps.target.canonicalHash(ancestor)) as Uint8Array;
    this.log.info('Peer chain forks from ours', {
      peer: peer.source.id,
      ancestor: ancestor.toString(),
      ours: (this.head as TargetHead).number.toString(),
      // peer.head may be gone by now (a status poll failed meanwhile): report the height we asked about.
      theirs: height.toString(),
    });
    return { number: ancestor, hash: ancestorHash };
  }

  /** Imports in chunks of `batch`, each made durable with one `steady()`. */
  private async importRange(peer: Peer, rlps: Uint8Array[], refs: BlockRef[]): Promise<void> {
    const { target } = this.deps;
    for (let i = 0; i < rlps.length; i += this.o.batch) {
      const chunk = rlps.slice(i, i + this.o.batch);
      let done;
      try {
        done = await this.watch.run(`the chain thread importing ${chunk.length} blocks from ${refs[i].number}`, () =>
          target.importBlocks(chunk),
        );
      } catch (err) {
        if (isLocalFailure(err)) throw err;
        // The blocks before the invalid one were verified: keep them, durably.
        await target.steady();
        this.head = await target.head();
        let bad = refs[i];
        for (const r of refs.slice(i)) {
          if (!(await target.hasBlock(r.hash))) {
            bad = r;
            break;
          }
        }
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
      await this.watch.run('the chain thread making the batch durable', () => target.steady());
      this.head = await target.head();
      this.meter.add(
        done.length,
        done.reduce((n, b) => n + b.txHashes.length, 0),
      );
      this.report();
    }
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
    // Level with the best peer: nothing to report (a signer among signers is level almost always).
    if (p.head >= p.target) return;
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
