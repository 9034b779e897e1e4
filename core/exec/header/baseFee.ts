/**
 * EIP-1559 base fee: what a block's `baseFeePerGas` must be, computed from its parent. The first London block
 * starts at 1 gwei; after that the fee moves by at most 1/8 toward keeping blocks half full.
 * https://eips.ethereum.org/EIPS/eip-1559
 */
import { isForkActive, type Fork } from '../../chain/forks.ts';
import { INITIAL_BASE_FEE } from '../../chain/genesis/index.ts';
/** Gas target = gas limit / elasticity. */
export const ELASTICITY_MULTIPLIER = 2n;
/** Max change per block = 1 / this. */
const BASE_FEE_CHANGE_DENOMINATOR = 8n;

/** The parent fields the calculation reads. */
export interface BaseFeeParent {
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
}

/** Expected base fee of a block whose parent is `parent` and which runs under `fork` (parent under `parentFork`). */
export function expectedBaseFee(parent: BaseFeeParent, parentFork: Fork): bigint {
  if (!isForkActive(parentFork, 'London') || parent.baseFeePerGas === undefined) return INITIAL_BASE_FEE;
  const parentBaseFee = parent.baseFeePerGas;
  const target = parent.gasLimit / ELASTICITY_MULTIPLIER;
  if (target === 0n) return parentBaseFee;
  if (parent.gasUsed === target) return parentBaseFee;
  if (parent.gasUsed > target) {
    const delta = (parentBaseFee * (parent.gasUsed - target)) / target / BASE_FEE_CHANGE_DENOMINATOR;
    return parentBaseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (parentBaseFee * (target - parent.gasUsed)) / target / BASE_FEE_CHANGE_DENOMINATOR;
  const next = parentBaseFee - delta;
  return next > 0n ? next : 0n;
}
