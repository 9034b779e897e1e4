/**
 * Intrinsic gas: what a transaction costs before its first opcode runs (Yellow Paper g0), by fork:
 * 21000 per transaction, 53000 for a create from Homestead (EIP-2); calldata 4 per zero byte and 68 per non-zero,
 * 16 from Istanbul (EIP-2028); 2400 per access-list address and 1900 per storage key (EIP-2930, Berlin);
 * 2 per 32-byte word of initcode for creates from Shanghai (EIP-3860); 25000 per authorization from Prague
 * (EIP-7702). Prague's calldata floor (EIP-7623) is `floorDataGas`: a transaction must be able to pay it, and pays
 * it when execution used less.
 */
import { isForkActive, type Fork } from '../forks.ts';
import type { AccessListItem, Authorization } from './types.ts';

export const TX_GAS = 21000n;
export const TX_GAS_CONTRACT_CREATION = 53000n;
export const TX_DATA_ZERO_GAS = 4n;
export const TX_DATA_NON_ZERO_GAS_FRONTIER = 68n;
export const TX_DATA_NON_ZERO_GAS_EIP2028 = 16n;
export const TX_ACCESS_LIST_ADDRESS_GAS = 2400n;
export const TX_ACCESS_LIST_STORAGE_KEY_GAS = 1900n;
export const INIT_CODE_WORD_GAS = 2n;
/** EIP-7702 PER_EMPTY_ACCOUNT_COST: charged per authorization up front; 12500 comes back for an existing authority. */
export const PER_AUTH_BASE_COST = 25000n;
export const PER_EMPTY_ACCOUNT_COST = 25000n;
export const PER_AUTH_EXISTING_REFUND = 12500n;
/** EIP-7623: gas per calldata token of the floor (a zero byte is 1 token, a non-zero byte 4). */
export const TOTAL_COST_FLOOR_PER_TOKEN = 10n;

/** The fields intrinsic gas reads. */
export interface IntrinsicGasFields {
  to?: Uint8Array;
  data: Uint8Array;
  accessList: readonly AccessListItem[];
  authorizationList?: readonly Authorization[];
}

function zeroBytes(data: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  return zeros;
}

/** EIP-7623 (Prague): 21000 + 10 per calldata token; 0 before Prague (no floor). */
export function floorDataGas(tx: Pick<IntrinsicGasFields, 'data'>, fork: Fork): bigint {
  if (!isForkActive(fork, 'Prague')) return 0n;
  const zeros = zeroBytes(tx.data);
  return TX_GAS + BigInt(zeros + (tx.data.length - zeros) * 4) * TOTAL_COST_FLOOR_PER_TOKEN;
}

/** Intrinsic gas of `tx` under `fork`'s rules. */
export function intrinsicGas(tx: IntrinsicGasFields, fork: Fork): bigint {
  const isCreate = tx.to === undefined;
  let gas = isCreate && isForkActive(fork, 'Homestead') ? TX_GAS_CONTRACT_CREATION : TX_GAS;
  const data = tx.data;
  const zeros = zeroBytes(data);
  const nonZeroGas = isForkActive(fork, 'Istanbul') ? TX_DATA_NON_ZERO_GAS_EIP2028 : TX_DATA_NON_ZERO_GAS_FRONTIER;
  gas += BigInt(zeros) * TX_DATA_ZERO_GAS + BigInt(data.length - zeros) * nonZeroGas;
  if (isCreate && isForkActive(fork, 'Shanghai')) gas += BigInt(Math.ceil(data.length / 32)) * INIT_CODE_WORD_GAS;
  if (isForkActive(fork, 'Berlin')) {
    let keys = 0;
    for (const entry of tx.accessList) keys += entry.storageKeys.length;
    gas += BigInt(tx.accessList.length) * TX_ACCESS_LIST_ADDRESS_GAS + BigInt(keys) * TX_ACCESS_LIST_STORAGE_KEY_GAS;
  }
  if (tx.authorizationList !== undefined) gas += BigInt(tx.authorizationList.length) * PER_AUTH_BASE_COST;
  return gas;
}
