/** Pool limits; defaults follow geth's legacypool (DefaultConfig) unless noted. */
export interface TxPoolOptions {
  /** Minimum fee cap / gas price accepted, in wei. */
  priceLimit: bigint;
  /** Percent a replacement must raise both the fee cap and the tip by. */
  priceBump: bigint;
  /** Executable transactions guaranteed per account. */
  accountSlots: number;
  /** Executable transactions across all accounts. */
  globalSlots: number;
  /** Non-executable (future-nonce) transactions per account. */
  accountQueue: number;
  /** Non-executable transactions across all accounts. */
  globalQueue: number;
  /** Largest transaction accepted, in bytes (geth: 4 slots of 32 KiB). */
  maxTxSize: number;
  /** How long a queued transaction may wait, in milliseconds. */
  lifetimeMs: number;
}

export const defaultTxPoolOptions: TxPoolOptions = {
  priceLimit: 1n,
  priceBump: 10n,
  accountSlots: 16,
  globalSlots: 5120,
  accountQueue: 64,
  globalQueue: 1024,
  maxTxSize: 128 * 1024,
  lifetimeMs: 3 * 60 * 60 * 1000,
};
