/**
 * Minimal structural types of the chain data the RPC layer encodes. Numbers are bigint, byte strings Uint8Array;
 * the chain's own header/transaction/receipt types satisfy these by shape, so no conversion layer is needed.
 * Optional fields are present from the fork that introduced them (baseFeePerGas from London, withdrawalsRoot from
 * Shanghai, blob fields from Cancun).
 */

export interface HeaderData {
  hash: Uint8Array;
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
}

export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** One EIP-7702 authorization as geth's JSON shows it. */
export interface AuthorizationData {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** A signed transaction with its sender (recovered once, by the chain). */
export interface TransactionData {
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559, 3 EIP-4844. */
  type: number;
  hash: Uint8Array;
  from: Uint8Array;
  /** null for contract creation. */
  to: Uint8Array | null;
  nonce: bigint;
  gasLimit: bigint;
  /** Legacy and 2930. */
  gasPrice?: bigint;
  /** 1559 and later. */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  /** EIP-7702 (type 4). */
  authorizationList?: AuthorizationData[];
  value: bigint;
  data: Uint8Array;
  accessList?: AccessListEntry[];
  /** Typed txs always; legacy only when EIP-155 protected. */
  chainId?: bigint;
  /** Legacy: the full v (27/28 or chainId*2+35/36); typed: the y parity (0/1). */
  v: bigint;
  r: bigint;
  s: bigint;
  /** What it paid per gas in its block (the backend fills it for mined transactions; the JSON's gasPrice then). */
  effectiveGasPrice?: bigint;
}

export interface WithdrawalData {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  /** In gwei. */
  amount: bigint;
}

export interface BlockData {
  header: HeaderData;
  transactions: TransactionData[];
  /** Uncle hashes (always empty on PoA, kept for the JSON shape). */
  uncles: Uint8Array[];
  withdrawals?: WithdrawalData[];
  /** RLP size of the whole block in bytes. */
  size: bigint;
  /** Pre-merge chains report it; omitted when undefined. */
  totalDifficulty?: bigint;
}

export interface LogData {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  blockNumber: bigint;
  blockHash: Uint8Array;
  /** The block's timestamp (geth 1.16's `blockTimestamp`; execution-apis#639). */
  blockTimestamp?: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  /** Index in the block. */
  logIndex: number;
  removed?: boolean;
}

/** A receipt with the context geth puts in its JSON (from/to/effectiveGasPrice come from the tx and block). */
export interface ReceiptData {
  type: number;
  /** 1 success / 0 failure (post-Byzantium); undefined when `root` is used instead. */
  status?: number;
  root?: Uint8Array;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  logsBloom: Uint8Array;
  logs: LogData[];
  transactionHash: Uint8Array;
  transactionIndex: number;
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** The block's timestamp (geth 1.16's `blockTimestamp`). */
  blockTimestamp?: bigint;
  from: Uint8Array;
  to: Uint8Array | null;
  contractAddress: Uint8Array | null;
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
}

/** Where a mined transaction sits. */
export interface TxLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** The block's timestamp (geth 1.16's `blockTimestamp` on mined transactions). */
  blockTimestamp?: bigint;
  index: number;
}
