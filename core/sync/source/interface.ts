/**
 * Where a follower gets blocks from. HTTP (`/xone/v1/`, HttpSyncSource) is the first implementation; devp2p may
 * replace it later, which is why the follower only sees this interface. Every method is bounded in time and size and
 * throws SyncError: SYNC_PEER_* codes other than UNREACHABLE mean the peer misbehaved.
 */
import type { SyncHead, SyncStatus } from '../wire.ts';

/** A subscription to a peer's head announcements. */
export interface HeadSubscription {
  close(): void;
}

/** One peer, as the follower sees it. */
export interface SyncSource {
  /** A name for logs (the peer URL). */
  readonly id: string;
  /** The peer's chain identity and durable head. */
  status(): Promise<SyncStatus>;
  /**
   * Raw consensus RLP of up to `count` consecutive canonical blocks from `from` (fewer when the peer's byte bound
   * or head cut the range). Framing is checked; block contents are the caller's to verify.
   */
  blocks(from: bigint, count: number): Promise<Uint8Array[]>;
  /** Streams head announcements to `onHead`; `onEnd` runs once when the stream ends or fails. */
  heads(onHead: (head: SyncHead) => void, onEnd: (err?: Error) => void): HeadSubscription;
  /** Forwards a raw transaction; resolves to its hash, or throws SYNC_TX_REFUSED with the peer's (geth) message. */
  submitTx(raw: Uint8Array): Promise<Uint8Array>;
}
