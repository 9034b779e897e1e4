/** A follower's TxPoolView: eth_sendRawTransaction goes to the producer through a peer; reads stay local. */
import { CoreError, XoneError } from '../errors.ts';
import type { TxPoolView } from '../rpc/interface.ts';

export function forwardingTxPool(local: TxPoolView, forward: (raw: Uint8Array) => Promise<Uint8Array>): TxPoolView {
  return {
    ...local,
    getPendingTransaction: (hash) => local.getPendingTransaction(hash),
    pendingNonce: (address) => local.pendingNonce(address),
    status: () => local.status(),
    content: () => local.content(),
    async sendRawTransaction(raw) {
      try {
        return await forward(raw);
      } catch (err) {
        // The producer's refusal text (geth's words) reaches the client unchanged, as -32000.
        if (err instanceof XoneError) throw new CoreError('TXPOOL_REJECTED', err.message, { reason: err.code });
        throw err;
      }
    },
  };
}
