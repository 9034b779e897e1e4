/** Receipt and log JSON as geth's MarshalReceipt and types.Log (with geth 1.16's blockTimestamp when known). */
import { type LogData, type ReceiptData } from './types.ts';
import { d, dn, q } from './hex.ts';

/** The JSON object of a log (eth_getLogs, receipts, subscriptions). */
export function encodeLog(l: LogData): Record<string, unknown> {
  return {
    address: d(l.address),
    topics: l.topics.map(d),
    data: d(l.data),
    blockNumber: q(l.blockNumber),
    transactionHash: d(l.transactionHash),
    transactionIndex: q(l.transactionIndex),
    blockHash: d(l.blockHash),
    ...(l.blockTimestamp !== undefined ? { blockTimestamp: q(l.blockTimestamp) } : {}),
    logIndex: q(l.logIndex),
    removed: l.removed === true,
  };
}

/** The JSON object of a receipt. */
export function encodeReceipt(r: ReceiptData): Record<string, unknown> {
  const out: Record<string, unknown> = {
    blockHash: d(r.blockHash),
    blockNumber: q(r.blockNumber),
    ...(r.blockTimestamp !== undefined ? { blockTimestamp: q(r.blockTimestamp) } : {}),
    contractAddress: dn(r.contractAddress),
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    from: d(r.from),
    gasUsed: q(r.gasUsed),
    logs: r.logs.map(encodeLog),
    logsBloom: d(r.logsBloom),
  };
  if (r.root !== undefined) out.root = d(r.root);
  else out.status = q(r.status ?? 0);
  out.to = dn(r.to);
  out.transactionHash = d(r.transactionHash);
  out.transactionIndex = q(r.transactionIndex);
  out.type = q(r.type);
  if (r.blobGasUsed !== undefined) out.blobGasUsed = q(r.blobGasUsed);
  if (r.blobGasPrice !== undefined) out.blobGasPrice = q(r.blobGasPrice);
  return out;
}
