/**
 * Intrinsic gas: what a transaction costs before its first opcode runs (Yellow Paper g0), by fork:
 * 21000 per transaction, 53000 for a create from Homestead (EIP-2); calldata 4 per zero byte and 68 per non-zero,
 * 16 from Istanbul (EIP-2028); 2400 per access-list address and 1900 per storage key (EIP-2930, Berlin);
 * 2 per 32-byte word of initcode for creates from Shanghai (EIP-3860).
 */
import { isForkActive, type Fork } from '../forks.ts';
import type { AccessListItem } from './types.ts';

export const TX_GAS = 21000n;
export const TX_GAS_CONTRACT_CREATION = 53000n;
export const TX_DATA_ZERO_GAS = 4n;
export const TX_DATA_NON_ZERO_GAS_FRONTIER = 68n;
export const TX_DATA_NON_ZERO_GAS_EIP2028 = 16n;
export const TX_ACCESS_LIST_ADDRESS_GAS = 2400n;
export const TX_ACCESS_LIST_STORAGE_KEY_GAS = 1900n;
export const INIT_CODE_WORD_GAS = 2n;

/** Intrinsic gas of `tx` under `fork`'s rules. */
export function intrinsicGas(tx: { to?: Uint8Array; data: Uint8Array; accessList: readonly AccessListItem[] }, fork: Fork): bigint {
  const isCreate = tx.to === undefined;
  let gas = isCreate && isForkActive(fork, 'Homestead') ? TX_GAS_CONTRACT_CREATION : TX_GAS;
  const data = tx.data;
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  const nonZeroGas = isForkActive(fork, 'Istanbul') ? TX_DATA_NON_ZERO_GAS_EIP2028 : TX_DATA_NON_ZERO_GAS_FRONTIER;
  gas += BigInt(zeros) * TX_DATA_ZERO_GAS + BigInt(data.length - zeros) * nonZeroGas;
  if (isCreate && isForkActive(fork, 'Shanghai')) gas += BigInt(Math.ceil(data.length / 32)) * INIT_CODE_WORD_GAS;
  if (isForkActive(fork, 'Berlin')) {
    let keys = 0;
    for (const entry of tx.accessList) keys += entry.storageKeys.length;
    gas += BigInt(tx.accessList.length) * TX_ACCESS_LIST_ADDRESS_GAS + BigInt(keys) * TX_ACCESS_LIST_STORAGE_KEY_GAS;
  }
  return gas;
}
