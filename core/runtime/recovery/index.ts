/** Public surface of sender recovery: the interface, the in-thread and pool implementations, their options. */
export { SenderRecoveryError, type RecoveryItem, type SenderRecovery, type SenderRecoveryErrorCode } from './types.ts';
export { InThreadSenderRecovery } from './inThread.ts';
export { RecoveryPool, type RecoveryPoolDeps } from './pool.ts';
export { DEFAULT_INLINE_BELOW, defaultRecoveryWorkers, type RecoveryPoolOptions } from './options.ts';
export { createSenderRecovery } from './create.ts';
