/**
 * Receipt encodings. Consensus (the receipts trie, debug_getRawReceipts): RLP([statusOrPostState, cumulativeGasUsed,
 * logsBloom, logs]), prefixed by the type byte for typed receipts (EIP-2718). Network (a block's receipt list in
 * eth/66+): legacy as the list, typed as a byte string of the consensus bytes. Storage (our segment records):
 * RLP([type, statusOrPostState, cumulativeGasUsed, logs]) without the bloom, which is recomputed on read (as geth's
 * ReceiptForStorage does) and saves 256 bytes per receipt.
 */
import { bigIntToBytes, concatBytes } from '../../primitives/hex.ts';
import {
  decodeRlp,
  encodeRlp,
  expectBytes,
  expectList,
  expectSmallUint,
  expectUint,
  type RlpInput,
  type RlpItem,
} from '../../primitives/rlp.ts';
import { orderedTrieRoot } from '../../trie/orderedTrieRoot.ts';
import { logsBloom } from '../bloom.ts';
import type { TxType } from '../transaction/types.ts';
import { ReceiptError } from './errors.ts';
import type { Log, Receipt } from './types.ts';

const SUCCESS = Uint8Array.of(1);
const FAILURE = new Uint8Array(0);

function statusField(r: Receipt): Uint8Array {
  if (r.postState) return r.postState;
  return r.status === 1 ? SUCCESS : FAILURE;
}

function logFields(log: Log): RlpInput {
  return [log.address, log.topics, log.data];
}

function decodeLog(item: RlpItem, what: string): Log {
  const f = expectList(item, what, 3);
  return {
    address: expectBytes(f[0], `${what}.address`, 20),
    topics: expectList(f[1], `${what}.topics`).map((t, i) => expectBytes(t, `${what}.topics[${i}]`, 32)),
    data: expectBytes(f[2], `${what}.data`),
  };
}

function decodeStatus(item: RlpItem, what: string): Pick<Receipt, 'status' | 'postState'> {
  const b = expectBytes(item, `${what}.status`);
  if (b.length === 32) return { postState: b };
  if (b.length === 0) return { status: 0 };
  if (b.length === 1 && b[0] === 1) return { status: 1 };
  throw new ReceiptError('RECEIPT_BAD_STATUS', `${what}.status: expected 0x, 0x01 or a 32-byte state root, got ${b.length} bytes`, {
    what,
  });
}

function checkType(type: number, what: string): TxType {
  if (type !== 0 && type !== 1 && type !== 2 && type !== 3 && type !== 4)
    throw new ReceiptError('RECEIPT_UNKNOWN_TYPE', `${what}: unknown receipt type ${type}`, { what, type });
  return type;
}

/** Consensus encoding of a receipt (the receipts-trie value). */
export function encodeReceipt(r: Receipt): Uint8Array {
  const body = encodeRlp([statusField(r), bigIntToBytes(r.cumulativeGasUsed), r.logsBloom, r.logs.map(logFields)]);
  return r.type === 0 ? body : concatBytes(Uint8Array.of(r.type), body);
}

function decodeBody(item: RlpItem, type: TxType, what: string): Receipt {
  const f = expectList(item, what, 4);
  const logs = expectList(f[3], `${what}.logs`).map((l, i) => decodeLog(l, `${what}.logs[${i}]`));
  return {
    type,
    ...decodeStatus(f[0], what),
    cumulativeGasUsed: expectUint(f[1], `${what}.cumulativeGasUsed`, 8),
    logsBloom: expectBytes(f[2], `${what}.logsBloom`, 256),
    logs,
  };
}

/** Decodes a consensus-encoded receipt. */
export function decodeReceipt(bytes: Uint8Array, what = 'receipt'): Receipt {
  if (bytes.length > 0 && bytes[0] < 0x80) {
    // 0x00 is not an envelope type: legacy receipts are bare RLP lists.
    if (bytes[0] === 0) throw new ReceiptError('RECEIPT_UNKNOWN_TYPE', `${what}: unknown receipt type 0`, { what, type: 0 });
    return decodeBody(decodeRlp(bytes.subarray(1)), checkType(bytes[0], what), what);
  }
  return decodeBody(decodeRlp(bytes), 0, what);
}

/** A receipt as an item of a network receipt list: legacy as its list, typed as a byte string. */
export function encodeReceiptForNetwork(r: Receipt): RlpInput {
  const consensus = encodeReceipt(r);
  return r.type === 0 ? (decodeRlp(consensus) as RlpInput) : consensus;
}

/** Inverse of `encodeReceiptForNetwork`. */
export function decodeReceiptFromNetworkItem(item: RlpItem, what = 'receipt'): Receipt {
  if (Array.isArray(item)) return decodeBody(item, 0, what);
  if (item.length === 0 || item[0] >= 0x80)
    throw new ReceiptError('RECEIPT_UNKNOWN_TYPE', `${what}: byte string is not a typed receipt`, { what });
  return decodeReceipt(item, what);
}

/** Storage form: RLP([type, statusOrPostState, cumulativeGasUsed, logs]). */
export function encodeReceiptForStorage(r: Receipt): RlpInput {
  return [bigIntToBytes(r.type), statusField(r), bigIntToBytes(r.cumulativeGasUsed), r.logs.map(logFields)];
}

/** Inverse of `encodeReceiptForStorage`, recomputing the bloom. */
export function decodeReceiptFromStorage(item: RlpItem, what = 'receipt'): Receipt {
  const f = expectList(item, what, 4);
  const logs = expectList(f[3], `${what}.logs`).map((l, i) => decodeLog(l, `${what}.logs[${i}]`));
  return {
    type: checkType(expectSmallUint(f[0], `${what}.type`), what),
    ...decodeStatus(f[1], what),
    cumulativeGasUsed: expectUint(f[2], `${what}.cumulativeGasUsed`, 8),
    logsBloom: logsBloom(logs),
    logs,
  };
}

/** A block's receipts in storage form, as one record. */
export function encodeReceiptsForStorage(receipts: readonly Receipt[]): Uint8Array {
  return encodeRlp(receipts.map(encodeReceiptForStorage));
}

/** Inverse of `encodeReceiptsForStorage`. */
export function decodeReceiptsFromStorage(bytes: Uint8Array): Receipt[] {
  return expectList(decodeRlp(bytes), 'receipts').map((item, i) => decodeReceiptFromStorage(item, `receipts[${i}]`));
}

/** The receipts root of a block header. */
export function receiptsRoot(receipts: readonly Receipt[]): Uint8Array {
  return orderedTrieRoot(receipts.map(encodeReceipt));
}
