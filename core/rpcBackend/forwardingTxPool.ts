/**
 * TxPoolViews whose eth_sendRawTransaction does more than the local pool: a follower's forwards to a signer through
 * a peer (reads stay local), and a signer's in a network of several keeps the transaction and shares it with its peers.
 */
import { CoreError, XoneError } from '../errors.ts';
import type { TxPoolView } from '../rpc/interface.ts';

/** `local` with another `sendRawTransaction` (the other methods bound to `local`: it may be a class instance). */
function withSend(local: TxPoolView, sendRawTransaction: TxPoolView['sendRawTransaction']): TxPoolView {
  return {
    getPendingTransaction: (hash) => local.getPendingTransaction(hash),
    pendingNonce: (address) => local.pendingNonce(address),
    status: () => local.status(),
    content: () => local.content(),
    sendRawTransaction,
  };
}

/** A follower's pool: transactions go to a signer through a peer; the producer's refusal reaches the client as is. */
export function forwardingTxPool(local: TxPoolView, forward: (raw: Uint8Array) => Promise<Uint8Array>): TxPoolView {
  return withSend(local, async (raw) => {
    try {
      return await forward(raw);
    } catch (err) {
      // The producer's refusal text (geth's words) reaches the client unchanged, as -32000.
      if (err instanceof XoneError) throw new CoreError('TXPOOL_REJECTED', err.message, { reason: err.code });
      throw err;
    }
  });
}

/**
 * A signer's pool among several signers: the transaction stays in the local pool (this node may seal the next block)
 * and, once accepted, goes to every peer so whichever signer seals next can include it. Refusals are the local
 * pool's; what peers answer is not waited for.
 */
export function sharingTxPool(local: TxPoolView, share: (raw: Uint8Array) => void): TxPoolView {
  return withSend(local, async (raw) => {
    const hash = await local.sendRawTransaction(raw);
    share(raw);
    return hash;
  });
}
