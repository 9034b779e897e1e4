/**
 * Transaction JSON exactly as geth's RPCTransaction (internal/ethapi): block fields null while pending, gasPrice the
 * effective price once mined, accessList/chainId/yParity for typed transactions, chainId on protected legacy ones.
 */
import { type TransactionData, type TxLocation } from './types.ts';
import { d, dn, q } from './hex.ts';

/** The JSON object of a transaction (mined when `at` is given, pending otherwise). */
export function encodeTransaction(tx: TransactionData, at: TxLocation | null): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockHash: at ? d(at.blockHash) : null,
    blockNumber: at ? q(at.blockNumber) : null,
    ...(at?.blockTimestamp !== undefined ? { blockTimestamp: q(at.blockTimestamp) } : {}),
    from: d(tx.from),
    gas: q(tx.gasLimit),
    // Mined: what it paid (the backend applies the fee rule); pending: the fee cap, as geth reports it.
    gasPrice: q((at ? tx.effectiveGasPrice : undefined) ?? tx.maxFeePerGas ?? tx.gasPrice ?? 0n),
  };
  if (tx.maxFeePerGas !== undefined) {
    out.maxFeePerGas = q(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = q(tx.maxPriorityFeePerGas ?? 0n);
  }
  if (tx.maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = q(tx.maxFeePerBlobGas);
  out.hash = d(tx.hash);
  out.input = d(tx.data);
  out.nonce = q(tx.nonce);
  out.to = dn(tx.to);
  out.transactionIndex = at ? q(at.index) : null;
  out.value = q(tx.value);
  out.type = q(tx.type);
  if (tx.type !== 0) out.accessList = (tx.accessList ?? []).map((e) => ({ address: d(e.address), storageKeys: e.storageKeys.map(d) }));
  if (tx.chainId !== undefined) out.chainId = q(tx.chainId);
  if (tx.blobVersionedHashes !== undefined) out.blobVersionedHashes = tx.blobVersionedHashes.map(d);
  if (tx.authorizationList !== undefined) {
    out.authorizationList = tx.authorizationList.map((a) => ({
      chainId: q(a.chainId),
      address: d(a.address),
      nonce: q(a.nonce),
      yParity: q(a.yParity),
      r: q(a.r),
      s: q(a.s),
    }));
  }
  out.v = q(tx.v);
  out.r = q(tx.r);
  out.s = q(tx.s);
  if (tx.type !== 0) out.yParity = q(tx.v);
  return out;
}
