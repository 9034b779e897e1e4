/** The transaction pool: geth-compatible validation, pending/queued split, replacement, limits, block selection. */
export { TxPool, type TxPoolDeps, type TxPoolEvents } from './txPool.ts';
export { TxPoolError, type TxPoolErrorCode } from './errors.ts';
export { defaultTxPoolOptions, type TxPoolOptions } from './options.ts';
export { effectiveTip, selectForBlock } from './selection.ts';
export type { PoolChainContext, PooledTransaction, PoolStateReader, TxPoolStatus } from './types.ts';
