/**
 * EIP-4844 blob gas pricing, with EIP-7691's (Prague) and the BPO forks' parameters from the chain's blob schedule
 * and EIP-7918's (Osaka) reserve price: the excess a header must carry, derived from its parent, and the blob base
 * fee that excess implies. https://eips.ethereum.org/EIPS/eip-4844, https://eips.ethereum.org/EIPS/eip-7918
 */
import { blobParams, type BlobParams, type ChainConfig, isForkActive, type Fork } from '../../chain/forks.ts';

/** Blob gas per blob (2^17). */
export const GAS_PER_BLOB = 131_072n;
export const MIN_BASE_FEE_PER_BLOB_GAS = 1n;
/** EIP-7918: execution gas a blob is worth at least, priced at the base fee (2^13). */
export const BLOB_BASE_COST = 8192n;

/** factor * e^(numerator / denominator), in integers, as the EIP defines it. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accum = factor * denominator;
  while (accum > 0n) {
    output += accum;
    accum = (accum * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}

/** Price of one unit of blob gas at `excessBlobGas` under `params`. */
export function blobBaseFee(excessBlobGas: bigint, params: BlobParams): bigint {
  return fakeExponential(MIN_BASE_FEE_PER_BLOB_GAS, excessBlobGas, params.baseFeeUpdateFraction);
}

/** The most blob gas a block of `fork` may use (undefined before Cancun). */
export function maxBlobGasPerBlock(config: Pick<ChainConfig, 'blobSchedule'>, fork: Fork): bigint | undefined {
  const params = blobParams(config, fork);
  return params === undefined ? undefined : BigInt(params.max) * GAS_PER_BLOB;
}

/** The parent fields the calculation reads. */
export interface BlobGasParent {
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
  baseFeePerGas?: bigint;
}

/** excessBlobGas a child of `parent` must carry when it runs under `fork` (geth's CalcExcessBlobGas). */
export function expectedExcessBlobGas(parent: BlobGasParent, config: Pick<ChainConfig, 'blobSchedule'>, fork: Fork): bigint {
  const params = blobParams(config, fork);
  if (params === undefined) return 0n;
  const parentExcess = parent.excessBlobGas ?? 0n;
  const parentUsed = parent.blobGasUsed ?? 0n;
  const target = BigInt(params.target) * GAS_PER_BLOB;
  if (parentExcess + parentUsed < target) return 0n;
  if (isForkActive(fork, 'Osaka')) {
    // EIP-7918: while execution gas prices blobs above their own fee, the excess grows as if no target existed.
    const reserve = BLOB_BASE_COST * (parent.baseFeePerGas ?? 0n);
    if (reserve > GAS_PER_BLOB * blobBaseFee(parentExcess, params)) {
      return parentExcess + (parentUsed * BigInt(params.max - params.target)) / BigInt(params.max);
    }
  }
  return parentExcess + parentUsed - target;
}
