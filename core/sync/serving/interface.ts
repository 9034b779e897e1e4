/**
 * What the block-serving routes need from the node: the durable chain, its announcements and the tx pool. The node
 * wires it (see `storeServingSource` for the implementation over a ChainStore reader); tests inject faults here.
 */
import type { SyncHead, SyncStatus } from '../wire.ts';

/** The serving side's view of the node. Everything it reports must already be durable. */
export interface BlockServingSource {
  /** Genesis hash, chain id, durable head, client version. */
  status(): SyncStatus;
  /** The consensus RLP of canonical block `number`, or undefined when unknown (or not yet durable). */
  blockRlp(number: bigint): Uint8Array | undefined;
  /**
   * Runs `read` on one consistent view of the chain (a `/blocks` answer is read inside it, so a reorg committed
   * meanwhile cannot splice two branches into one range). Absent: no such guarantee is needed (a test source).
   */
  snapshot?<T>(read: () => T): T;
  /** Calls `cb` with each new durable head; returns the unsubscribe function. */
  subscribeHeads(cb: (head: SyncHead) => void): () => void;
  /**
   * Hands a raw transaction to the tx pool; resolves to its hash. A refusal throws an Error whose message is the
   * geth text ("nonce too low", "already known", ...), passed to the caller verbatim.
   */
  submitTx(raw: Uint8Array): Promise<Uint8Array>;
}
