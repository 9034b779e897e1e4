/**
 * The transaction shape every layer shares. One flat, plain object for all three envelope types so it survives
 * structured clone (it crosses worker boundaries to the recovery pool) and callers need no per-type branches to read
 * fees: legacy and EIP-2930 transactions carry their gas price in all three fee fields.
 */

/**
 * 0 = legacy (pre- and post-EIP-155), 1 = EIP-2930 access list, 2 = EIP-1559 dynamic fee, 3 = EIP-4844 blob,
 * 4 = EIP-7702 set code.
 */
export type TxType = 0 | 1 | 2 | 3 | 4;

/**
 * One EIP-7702 authorization: the authority (recovered from the signature over keccak(0x05 || rlp([chainId, address,
 * nonce]))) delegates its code to `address`. An invalid one is skipped at execution, never a reason to refuse the tx.
 */
export interface Authorization {
  /** 0 = valid on every chain. */
  chainId: bigint;
  /** 20 bytes: the delegation target (zero address = clear the delegation). */
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** One EIP-2930 access-list entry: an address and the storage slots it pre-warms. */
export interface AccessListItem {
  /** 20 bytes. */
  address: Uint8Array;
  /** 32 bytes each. */
  storageKeys: Uint8Array[];
}

export interface Transaction {
  type: TxType;
  /** Legacy pre-EIP-155 (v = 27/28): undefined. Otherwise the chain the signature commits to. */
  chainId: bigint | undefined;
  nonce: bigint;
  /** Legacy/2930: the gas price. EIP-1559: equal to maxFeePerGas. */
  gasPrice: bigint;
  /** Legacy/2930: equal to gasPrice. */
  maxPriorityFeePerGas: bigint;
  /** Legacy/2930: equal to gasPrice. */
  maxFeePerGas: bigint;
  gasLimit: bigint;
  /** 20 bytes; undefined = contract creation. */
  to: Uint8Array | undefined;
  value: bigint;
  data: Uint8Array;
  /** Empty for legacy transactions. */
  accessList: AccessListItem[];
  /** Type 3: the most the sender pays per blob gas. */
  maxFeePerBlobGas?: bigint;
  /** Type 3: the versioned hashes (0x01 || sha256(commitment)[1:]) of the blobs it carries. */
  blobVersionedHashes?: Uint8Array[];
  /** Type 4: the code delegations it sets. */
  authorizationList?: Authorization[];
  /** Legacy: the raw v (27/28 or chainId * 2 + 35/36). Typed: the y parity, 0 or 1. */
  v: bigint;
  r: bigint;
  s: bigint;
  /** Canonical envelope: the RLP list for legacy, type byte || RLP payload for typed. */
  raw: Uint8Array;
  /** keccak256(raw): the transaction hash. */
  hash: Uint8Array;
}

/**
 * What `signTransaction` takes: the fields a signer chooses. Fee fields by type: legacy/2930 need `gasPrice`,
 * EIP-1559 needs `maxPriorityFeePerGas` and `maxFeePerGas`. `chainId` undefined on a legacy transaction makes a
 * pre-EIP-155 signature (replayable across chains; only for tests and old chains).
 */
export interface UnsignedTransaction {
  type: TxType;
  chainId: bigint | undefined;
  nonce: bigint;
  gasPrice?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerGas?: bigint;
  gasLimit: bigint;
  to: Uint8Array | undefined;
  value: bigint;
  data: Uint8Array;
  accessList?: AccessListItem[];
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  authorizationList?: Authorization[];
}

/** 2^64 - 1: EIP-2681 caps nonces below this; gas limits are uint64. */
export const MAX_UINT64 = (1n << 64n) - 1n;
/** 2^256 - 1: the largest EVM word (value, fee caps). */
export const MAX_UINT256 = (1n << 256n) - 1n;
