/**
 * Intrinsic gas of a transaction under a fork: the gas charged before any code runs (Yellow Paper g0 with
 * EIP-2 creation cost, EIP-2028 calldata price, EIP-2930 access lists and EIP-3860 initcode words).
 */
import { isForkActive, type Fork } from '../chain/forks.ts';
import type { ExecTx } from './types.ts';

/** Gas charged before execution starts. */
export function intrinsicGasOf(tx: Pick<ExecTx, 'to' | 'data' | 'accessList'>, fork: Fork): bigint {
  const create = tx.to === undefined;
  let gas = create && isForkActive(fork, 'Homestead') ? 53000 : 21000;
  let zeros = 0;
  for (let i = 0; i < tx.data.length; i++) if (tx.data[i] === 0) zeros++;
  const nonZeroCost = isForkActive(fork, 'Istanbul') ? 16 : 68;
  gas += zeros * 4 + (tx.data.length - zeros) * nonZeroCost;
  if (create && isForkActive(fork, 'Shanghai')) gas += Math.ceil(tx.data.length / 32) * 2;
  for (const entry of tx.accessList) gas += 2400 + entry.storageKeys.length * 1900;
  return BigInt(gas);
}

/** EIP-3860 (Shanghai) initcode size limit. */
export const MAX_INITCODE_SIZE = 49152;
