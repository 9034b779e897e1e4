/**
 * Block building order: the best effective tip first, each account's transactions in nonce order (geth's
 * TransactionsByPriceAndNonce). A binary heap over each account's next transaction keeps selection O(n log accounts).
 */
import type { PooledTransaction } from './types.ts';

/** What the producer gets to pay the coinbase per gas: min(tip cap, fee cap - base fee). */
export function effectiveTip(tx: PooledTransaction['tx'], baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return tx.gasPrice;
  const headroom = tx.maxFeePerGas - baseFee;
  return headroom < tx.maxPriorityFeePerGas ? headroom : tx.maxPriorityFeePerGas;
}

interface Cursor {
  list: PooledTransaction[];
  index: number;
  tip: bigint;
}

/**
 * Orders executable transactions for a block: `byAccount` holds each account's executable run (ascending nonces).
 * Transactions whose fee cap is below the base fee end their account's run. Stops adding once `gasLimit` is used.
 */
export function selectForBlock(
  byAccount: Iterable<PooledTransaction[]>,
  baseFee: bigint | undefined,
  gasLimit: bigint,
): PooledTransaction[] {
  const heap: Cursor[] = [];
  for (const list of byAccount) {
    if (list.length > 0 && affordable(list[0], baseFee)) heap.push({ list, index: 0, tip: effectiveTip(list[0].tx, baseFee) });
  }
  heapify(heap);
  const out: PooledTransaction[] = [];
  let gasLeft = gasLimit;
  while (heap.length > 0 && gasLeft >= 21_000n) {
    const top = heap[0];
    const item = top.list[top.index];
    if (item.tx.gasLimit <= gasLeft) {
      out.push(item);
      gasLeft -= item.tx.gasLimit;
      top.index++;
      const next = top.list[top.index];
      if (next && affordable(next, baseFee)) {
        top.tip = effectiveTip(next.tx, baseFee);
        siftDown(heap, 0);
        continue;
      }
    }
    // Either the account is done or its next transaction does not fit: later nonces cannot go first, so drop it.
    const last = heap.pop() as Cursor;
    if (heap.length > 0) {
      heap[0] = last;
      siftDown(heap, 0);
    }
  }
  return out;
}

function affordable(p: PooledTransaction, baseFee: bigint | undefined): boolean {
  return baseFee === undefined || p.tx.maxFeePerGas >= baseFee;
}

/** Max-heap by tip; ties go to the transaction seen first (geth orders ties by arrival time). */
function better(a: Cursor, b: Cursor): boolean {
  if (a.tip !== b.tip) return a.tip > b.tip;
  return a.list[a.index].addedAt < b.list[b.index].addedAt;
}

function heapify(heap: Cursor[]): void {
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
}

function siftDown(heap: Cursor[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let best = i;
    if (l < heap.length && better(heap[l], heap[best])) best = l;
    if (r < heap.length && better(heap[r], heap[best])) best = r;
    if (best === i) return;
    [heap[i], heap[best]] = [heap[best], heap[i]];
    i = best;
  }
}
