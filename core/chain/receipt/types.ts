/**
 * Receipts and logs (Yellow Paper section 4.3.1, EIP-658 status, EIP-2718 typed receipts). Before Byzantium a
 * receipt carries the intermediate state root instead of a status; both forms decode, exactly one is set.
 */
import type { TxType } from '../transaction/types.ts';

export interface Log {
  /** 20 bytes. */
  address: Uint8Array;
  /** Up to four 32-byte topics. */
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface Receipt {
  /** The transaction's envelope type; the receipt is encoded with the same type byte. */
  type: TxType;
  /** 1 = success, 0 = failure (Byzantium onwards); undefined when `postState` is set. */
  status?: 0 | 1;
  /** 32-byte intermediate state root (pre-Byzantium receipts only). */
  postState?: Uint8Array;
  cumulativeGasUsed: bigint;
  /** 256 bytes; `logsBloom(logs)`. */
  logsBloom: Uint8Array;
  logs: Log[];
}
