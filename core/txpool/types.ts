import type { Fork } from '../chain/forks.ts';
import type { Transaction } from '../chain/transaction/index.ts';

/** A transaction in the pool with its sender recovered once (the producer never recovers it again). */
export interface PooledTransaction {
  tx: Transaction;
  sender: Uint8Array;
  /** Lower-case 0x hex of `sender`: the map key. */
  senderHex: string;
  /** Lower-case 0x hex of the transaction hash: the by-hash key, kept so dropping a mined transaction needs no hex. */
  hashHex: string;
  /** Arrival order (monotonic counter), to break fee ties as geth does. */
  addedAt: number;
  /** Wall-clock arrival in ms, for the queued lifetime. */
  addedAtMs: number;
}

/** Account state the pool validates against: the head block's state. */
export interface PoolStateReader {
  nonce(address: Uint8Array): bigint;
  balance(address: Uint8Array): bigint;
}

/** The rules of the pending block. */
export interface PoolChainContext {
  fork: Fork;
  chainId: bigint;
  /** Base fee of the pending block (undefined before London). */
  baseFee: bigint | undefined;
  blockGasLimit: bigint;
}

export interface TxPoolStatus {
  pending: number;
  queued: number;
}
