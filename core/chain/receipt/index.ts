/** Receipts and logs: types, the three encodings (consensus, network, storage), receipts root. */
export { type Log, type Receipt } from './types.ts';
export { ReceiptError, type ReceiptErrorCode } from './errors.ts';
export {
  decodeReceipt,
  decodeReceiptFromNetworkItem,
  decodeReceiptFromStorage,
  decodeReceiptsFromStorage,
  encodeReceipt,
  encodeReceiptForNetwork,
  encodeReceiptForStorage,
  encodeReceiptsForStorage,
  receiptsRoot,
} from './codec.ts';
