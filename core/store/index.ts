/** Public surface of the chain store (core/store). See docs/store.md. */
export { ChainStore, type BatchHook, type ExtraWrites, type StoreStats } from './chainStore.ts';
export { openReadOnly, ReadOnlyChainStore } from './readOnly.ts';
export { ChainReader, type ReaderFaults } from './read/chainReader.ts';
export { Deadline, type ReadLimits } from './read/deadline.ts';
export type { StoreTransaction } from './connection.ts';
export { StoreError, StoreResultLimitError, StoreTimeoutError, type ReadStopReason, type StoreErrorCode } from './errors.ts';
export { defaultStoreOptions, MAX_BATCH, type CommitSurvives, type StoreDeps, type StoreFaults, type StoreOptions } from './options.ts';
export { MIGRATIONS, type Migration } from './schema/migrations.ts';
export { checkStore, type CheckReport } from './check.ts';
export { fullWhileFlagFs } from './segment/fullWhileFlagFs.ts';
export type { ReconcileReport } from './reconcile.ts';
export type {
  BlockRecord,
  Durability,
  HeadMarker,
  HeadName,
  LogFilter,
  LogHit,
  LogIndexEntry,
  StoredHeader,
  StoreLogger,
  TxLocation,
} from './types.ts';
export { silentLogger } from './types.ts';
