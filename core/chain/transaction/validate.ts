/**
 * Static validity: every rule a transaction must meet that needs no state (no balance, no account nonce), under the
 * rules of a fork and for a chain. Block import, the transaction pool and eth_sendRawTransaction all call this.
 * Sender recovery (which can also fail) is separate because it is the expensive part and may run in a pool.
 */
import { isForkActive, type Fork } from '../forks.ts';
import { SECP256K1_HALF_N, SECP256K1_N } from '../../primitives/secp256k1/types.ts';
import { TxError } from './errors.ts';
import { floorDataGas, intrinsicGas } from './intrinsicGas.ts';
import { recoveryId } from './sender.ts';
import { MAX_UINT256, MAX_UINT64, type Transaction } from './types.ts';

/** EIP-3860: the largest initcode a create transaction may carry (2 * the EIP-170 code size limit). */
export const MAX_INIT_CODE_SIZE = 49152;
/** EIP-7825 (Osaka): the most gas one transaction may ask for, 2^24. */
export const MAX_TX_GAS = 1n << 24n;
/** EIP-4844: the version byte of a KZG commitment's versioned hash. */
export const BLOB_COMMITMENT_VERSION_KZG = 0x01;
/** EIP-7594 (Osaka): the most blobs one transaction may carry (before Osaka the block's maximum is the bound). */
export const MAX_BLOBS_PER_TX = 6;

export interface StaticValidityContext {
  /** The fork whose rules apply (of the block that includes the transaction, or the pending block). */
  fork: Fork;
  /** The chain's id; EIP-155 and typed transactions must commit to it. */
  chainId: bigint;
}

/** Throws a `TxError` naming the first rule `tx` breaks; returns when it is statically valid. */
export function validateTransactionStatic(tx: Transaction, { fork, chainId }: StaticValidityContext): void {
  checkType(tx, fork);
  checkChainId(tx, fork, chainId);
  checkSizes(tx);
  checkFees(tx);
  checkSignature(tx, fork);
  if (tx.to === undefined && isForkActive(fork, 'Shanghai') && tx.data.length > MAX_INIT_CODE_SIZE) {
    throw new TxError('TX_INIT_CODE_TOO_LARGE', `max initcode size exceeded: code size ${tx.data.length} limit ${MAX_INIT_CODE_SIZE}`, {
      size: tx.data.length,
      limit: MAX_INIT_CODE_SIZE,
    });
  }
  checkBlobs(tx, fork);
  if (tx.type === 4 && (tx.authorizationList ?? []).length === 0) {
    throw new TxError('TX_EMPTY_AUTH_LIST', 'EIP-7702 transaction with empty auth list');
  }
  if (isForkActive(fork, 'Osaka') && tx.gasLimit > MAX_TX_GAS) {
    throw new TxError('TX_GAS_LIMIT_TOO_HIGH', `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gasLimit})`, {
      cap: MAX_TX_GAS.toString(),
      gasLimit: tx.gasLimit.toString(),
    });
  }
  const needed = intrinsicGas(tx, fork);
  if (tx.gasLimit < needed) {
    throw new TxError('TX_INTRINSIC_GAS', `intrinsic gas too low: have ${tx.gasLimit}, want ${needed}`, {
      have: tx.gasLimit.toString(),
      want: needed.toString(),
    });
  }
  const floor = floorDataGas(tx, fork);
  if (tx.gasLimit < floor) {
    throw new TxError('TX_FLOOR_DATA_GAS', `insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`, {
      have: tx.gasLimit.toString(),
      want: floor.toString(),
    });
  }
}

function checkBlobs(tx: Transaction, fork: Fork): void {
  if (tx.type !== 3) return;
  const hashes = tx.blobVersionedHashes ?? [];
  if (hashes.length === 0) throw new TxError('TX_BLOB_INVALID', 'blobless blob transaction');
  if (isForkActive(fork, 'Osaka') && hashes.length > MAX_BLOBS_PER_TX) {
    throw new TxError('TX_BLOB_INVALID', `blob transaction has too many blobs: ${hashes.length} > ${MAX_BLOBS_PER_TX}`, {
      blobs: hashes.length,
    });
  }
  for (const [i, h] of hashes.entries()) {
    if (h[0] !== BLOB_COMMITMENT_VERSION_KZG) {
      throw new TxError('TX_BLOB_INVALID', `blob ${i} has invalid hash version: 0x${(h[0] ?? 0).toString(16).padStart(2, '0')}`, {
        index: i,
      });
    }
  }
}

function checkType(tx: Transaction, fork: Fork): void {
  const since = (['Frontier', 'Berlin', 'London', 'Cancun', 'Prague'] as const)[tx.type];
  if (since === undefined || !isForkActive(fork, since)) {
    throw new TxError(
      'TX_TYPE_NOT_SUPPORTED',
      `transaction type not supported: type ${tx.type} before ${since ?? 'any fork'} (fork ${fork})`,
      { type: tx.type, fork },
    );
  }
  if (tx.type === 0 && tx.accessList.length > 0) throw new TxError('TX_MALFORMED', 'legacy transaction cannot carry an access list');
}

function checkChainId(tx: Transaction, fork: Fork, chainId: bigint): void {
  if (tx.chainId === undefined) return; // pre-EIP-155 legacy: valid on every chain (replayable by design)
  if (tx.type === 0 && !isForkActive(fork, 'SpuriousDragon')) {
    throw new TxError('TX_INVALID_CHAIN_ID', `invalid chain id for signer: EIP-155 signature before Spurious Dragon (fork ${fork})`, {
      fork,
    });
  }
  if (tx.chainId !== chainId) {
    throw new TxError('TX_INVALID_CHAIN_ID', `invalid chain id for signer: have ${tx.chainId} want ${chainId}`, {
      have: tx.chainId.toString(),
      want: chainId.toString(),
    });
  }
}

function tooLarge(field: string, value: bigint, max: bigint, message: string): void {
  if (value < 0n || value > max) throw new TxError('TX_FIELD_TOO_LARGE', message, { field, value: value.toString() });
}

function checkSizes(tx: Transaction): void {
  if (tx.nonce >= MAX_UINT64) throw new TxError('TX_NONCE_MAX', `nonce has max value: ${tx.nonce}`, { nonce: tx.nonce.toString() });
  if (tx.nonce < 0n) throw new TxError('TX_FIELD_TOO_LARGE', `negative nonce: ${tx.nonce}`);
  tooLarge('gasLimit', tx.gasLimit, MAX_UINT64, `gas uint64 overflow: gas limit ${tx.gasLimit}`);
  tooLarge('value', tx.value, MAX_UINT256, 'value higher than 2^256-1');
  if (tx.to !== undefined && tx.to.length !== 20)
    throw new TxError('TX_INVALID_ADDRESS', `transaction: to must be 20 bytes, got ${tx.to.length}`);
  for (const [i, entry] of tx.accessList.entries()) {
    if (entry.address.length !== 20)
      throw new TxError('TX_INVALID_ADDRESS', `transaction: accessList[${i}].address must be 20 bytes`, { index: i });
    for (const key of entry.storageKeys) {
      if (key.length !== 32)
        throw new TxError('TX_INVALID_STORAGE_KEY', `transaction: accessList[${i}] storage key must be 32 bytes`, { index: i });
    }
  }
}

function checkFees(tx: Transaction): void {
  tooLarge('maxFeePerGas', tx.maxFeePerGas, MAX_UINT256, `max fee per gas higher than 2^256-1: ${tx.maxFeePerGas}`);
  tooLarge(
    'maxPriorityFeePerGas',
    tx.maxPriorityFeePerGas,
    MAX_UINT256,
    `max priority fee per gas higher than 2^256-1: ${tx.maxPriorityFeePerGas}`,
  );
  tooLarge('gasPrice', tx.gasPrice, MAX_UINT256, `gas price higher than 2^256-1: ${tx.gasPrice}`);
  if (tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
    throw new TxError(
      'TX_TIP_ABOVE_FEE_CAP',
      `max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: ${tx.maxPriorityFeePerGas}, maxFeePerGas: ${tx.maxFeePerGas}`,
      {
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
        maxFeePerGas: tx.maxFeePerGas.toString(),
      },
    );
  }
  // The up-front cost gas * price must be a 256-bit word, or no balance could ever be checked against it.
  if (tx.gasLimit * tx.maxFeePerGas > MAX_UINT256) {
    throw new TxError('TX_FEE_OVERFLOW', `gas * max fee per gas overflows 256 bits: ${tx.gasLimit} * ${tx.maxFeePerGas}`, {
      gasLimit: tx.gasLimit.toString(),
      maxFeePerGas: tx.maxFeePerGas.toString(),
    });
  }
}

function checkSignature(tx: Transaction, fork: Fork): void {
  recoveryId(tx); // v must name a parity (and, for legacy EIP-155, agree with chainId)
  const lowS = isForkActive(fork, 'Homestead');
  const sMax = lowS ? SECP256K1_HALF_N : SECP256K1_N - 1n;
  if (tx.r < 1n || tx.r >= SECP256K1_N || tx.s < 1n || tx.s > sMax) {
    throw new TxError(
      'TX_INVALID_SIGNATURE',
      `invalid transaction v, r, s values: r or s out of range${lowS ? ' (EIP-2: s must be <= n/2)' : ''}`,
      {
        r: tx.r.toString(),
        s: tx.s.toString(),
      },
    );
  }
}
