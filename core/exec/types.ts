/**
 * Data the executor consumes and produces. The transaction shape is the subset of `core/chain/transaction`'s
 * `Transaction` the state transition reads, so execution does not depend on how a transaction was decoded.
 */
import type { Fork } from '../chain/forks.ts';
import type { Log } from '../chain/receipt/index.ts';
import type { AccessListItem, Authorization } from '../chain/transaction/index.ts';

/** The fields of a transaction the state transition reads. Legacy transactions carry gasPrice in both fee caps. */
export interface ExecTx {
  type: number;
  nonce: bigint;
  gasLimit: bigint;
  /** Legacy / 2930 price; for 1559 transactions equal to maxFeePerGas. */
  gasPrice: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  accessList: AccessListItem[];
  /** Type 3 (EIP-4844). */
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  /** Type 4 (EIP-7702). */
  authorizationList?: Authorization[];
}

/** Block-level context a transaction runs in. */
export interface BlockEnv {
  chainId: bigint;
  fork: Fork;
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
  difficulty: bigint;
  /** mixHash; PREVRANDAO from Paris on. */
  prevRandao: Uint8Array;
  /** Present from London on. */
  baseFee?: bigint;
  /** Cancun on: the price of blob gas in this block (BLOBBASEFEE, blob fees). */
  blobBaseFee?: bigint;
  /** Cancun on: the most blob gas the block may use (blob schedule of the fork). */
  maxBlobGas?: bigint;
  /** Hash of an ancestor by number (BLOCKHASH); undefined when out of the 256-block window or unknown. */
  blockHash(number: bigint): Uint8Array | undefined;
}

/** geth's BlockOverrides: the block a call runs in, where it differs (eth_simulateV1's blocks, debug_traceCall). */
export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
}

/** Outcome of one included transaction. */
export interface TxResult {
  /** 1 success, 0 failure (reverted or exceptional halt). */
  status: 0 | 1;
  /** Gas charged to the sender after refunds. */
  gasUsed: bigint;
  logs: Log[];
  /** Address of the contract a creation transaction made. */
  contractAddress?: Uint8Array;
  /** Output (or revert data). */
  returnValue: Uint8Array;
  /** The EVM's error text when status is 0. */
  error?: string;
  /** Effective gas price paid. */
  effectiveGasPrice: bigint;
}
