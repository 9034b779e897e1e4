/**
 * What a transaction pays per gas in a block with base fee `baseFee` (EIP-1559): min(maxFeePerGas, baseFee + tip).
 * Legacy and EIP-2930 transactions carry their gas price in all three fee fields, so the same formula returns it;
 * before London (no base fee) the price is the gas price (the fee cap for dynamic-fee types).
 */
import type { Transaction } from './types.ts';

/** The fee fields the price depends on. */
export type FeeFields = Pick<Transaction, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>;

/** Fee per gas the sender pays (and the receipt's effectiveGasPrice). */
export function effectiveGasPrice(tx: FeeFields, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return tx.gasPrice;
  const withTip = baseFee + tx.maxPriorityFeePerGas;
  return withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas;
}
