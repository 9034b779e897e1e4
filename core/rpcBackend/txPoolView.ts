/** The RPC's TxPoolView over the node's TxPool: decoding, geth's refusal messages, pending lookups. */
import { decodePooledTransaction, type Transaction } from '../chain/transaction/index.ts';
import { CoreError, XoneError } from '../errors.ts';
import type { TxPoolView } from '../rpc/interface.ts';
import type { TransactionData } from '../rpc/encode/types.ts';
import type { TxPool } from '../txpool/index.ts';
import { transactionData } from './convert.ts';

/**
 * Longest an automine send waits for its block before answering (the transaction stays pending either way). The
 * producer settles the wait when the block is served or its seal fails, so the cap only bounds a chain thread that
 * never answers. It was 2 s: on a loaded host a seal took longer, the send answered before its block, and a Hardhat
 * test that read state right after its sends saw the last ones unmined (CI of e79b339, load 15-17).
 */
export const AUTOMINE_ANSWER_WAIT_MS = 30_000;

/** Resolves when `p` settles or after `ms`, whichever comes first (the timer never outlives it). */
async function settledWithin(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class NodeTxPoolView implements TxPoolView {
  constructor(
    private readonly pool: TxPool,
    private readonly stateNonce: (address: Uint8Array) => bigint,
    /** Why the node takes no transactions now (block production is stuck), or undefined. */
    private readonly refusing: () => string | undefined = () => undefined,
    /** Automine: the block being sealed for the transaction just added (see `submit`), or undefined. */
    private readonly sealing: () => Promise<void> | undefined = () => undefined,
  ) {}

  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return this.submit(raw);
  }

  /**
   * Adds a raw transaction, or a decoded one with its sender already known (the node's own accounts: signed here, or
   * impersonated ones that carry no real signature); refusals become TXPOOL_REJECTED with geth's message.
   */
  async submit(tx: Uint8Array | Transaction, sender?: Uint8Array): Promise<Uint8Array> {
    const stuck = this.refusing();
    if (stuck !== undefined)
      throw new CoreError('TXPOOL_REJECTED', `block production is stuck (${stuck}): not accepting transactions`, {
        reason: 'PRODUCTION_STUCK',
      });
    let hash: Uint8Array;
    try {
      hash = this.pool.add(tx instanceof Uint8Array ? decodePooledTransaction(tx) : tx, sender).hash;
    } catch (err) {
      // Every refusal (bad encoding, static rule, pool rule) reaches the wire as -32000 with geth's message.
      if (err instanceof XoneError) throw new CoreError('TXPOOL_REJECTED', err.message, { reason: err.code });
      throw err;
    }
    // Automine answers once the transaction's block is sealed, as Hardhat does: the client's first receipt read
    // finds it (no polling beside the seal for the two cores), and a chain thread that never answers cannot hold it past the cap.
    const sealing = this.sealing();
    if (sealing) await settledWithin(sealing, AUTOMINE_ANSWER_WAIT_MS);
    return hash;
  }

  getPendingTransaction(hash: Uint8Array): TransactionData | null {
    const p = this.pool.get(hash);
    return p ? transactionData(p.tx, p.sender) : null;
  }

  pendingNonce(address: Uint8Array): bigint {
    return this.pool.pendingNonce(address, this.stateNonce(address));
  }

  status(): { pending: number; queued: number } {
    return this.pool.status();
  }

  content(): { pending: TransactionData[]; queued: TransactionData[] } {
    const pending: TransactionData[] = [];
    const queued: TransactionData[] = [];
    for (const entry of this.pool.content().values()) {
      for (const p of entry.pending) pending.push(transactionData(p.tx, p.sender));
      for (const p of entry.queued) queued.push(transactionData(p.tx, p.sender));
    }
    return { pending, queued };
  }
}
