/**
 * The follower's import order with sender recovery one block ahead (issue #5, "recover the next block's senders while
 * the current block executes"): when block i is handed out, block i+1 is already decoded and its signatures are in
 * the recovery pool's worker threads, so the chain thread executes block i while the workers recover i+1. Without a
 * pool (`--recovery-workers 0`) nothing is recovered ahead: the importer recovers each block in the chain thread.
 */
import { decodeBlock, type Block } from '../chain/block/index.ts';
import { recoveryId, signingHashOfDecoded, type Transaction } from '../chain/transaction/index.ts';
import type { RecoveryItem, SenderRecovery } from '../runtime/recovery/index.ts';

/** One block ready to import, with its senders when they were recovered ahead. */
export interface PipelinedBlock {
  block: Block;
  /** The pool's answer for this block's senders (rejects on a bad signature); undefined = recover in the importer. */
  senders?: Promise<Uint8Array[]>;
}

/** The block was just decoded, so each transaction's signed bytes are cut from its envelope (hash.ts). */
function recoveryItem(tx: Transaction): RecoveryItem {
  return { hash: signingHashOfDecoded(tx), r: tx.r, s: tx.s, recovery: recoveryId(tx) };
}

/** Decodes `rlp` and, with a pool, starts recovering its senders; a decode error is kept for when the block's turn comes. */
function start(rlp: Uint8Array, recovery: SenderRecovery | undefined): () => PipelinedBlock {
  let block: Block;
  try {
    block = decodeBlock(rlp);
  } catch (err) {
    return () => {
      throw err;
    };
  }
  if (!recovery || block.transactions.length === 0) return () => ({ block });
  let items: RecoveryItem[];
  try {
    items = block.transactions.map(recoveryItem);
  } catch {
    // A malformed signature (bad v): the importer recovers in-thread and reports it with the transaction's index.
    return () => ({ block });
  }
  const senders = recovery.recover(items);
  senders.catch(() => {}); // awaited by the importer; this only keeps an abandoned look-ahead from being "unhandled"
  return () => ({ block, senders });
}

/**
 * Yields the blocks of `rlps` in order; taking block i starts block i+1's recovery. Errors (an undecodable block)
 * are thrown when that block is taken, so the blocks before it still import.
 */
export function* pipelineSenders(rlps: readonly Uint8Array[], recovery: SenderRecovery | undefined): Generator<PipelinedBlock> {
  let next = rlps.length > 0 ? start(rlps[0], recovery) : undefined;
  for (let i = 0; next; i++) {
    const current = next;
    next = i + 1 < rlps.length ? start(rlps[i + 1], recovery) : undefined;
    yield current();
  }
}
