/** Node-to-node sync (`/xone/v1/`): block serving, sync sources, the follower. See docs/sync.md. */
export { SyncError, isPeerFault, type SyncErrorCode } from './errors.ts';
export { Follower, type FollowerDeps, type PeerInfo } from './follower.ts';
export { findCommonAncestor, MAX_REORG_DEPTH } from './ancestor.ts';
export { checkRange } from './checkRange.ts';
export * from './options.ts';
export { ProgressMeter, formatProgress, type SyncProgress } from './progress.ts';
export { createSyncRoutes, BLOCKS_CONTENT_TYPE, type SyncRoutesOptions } from './serving/routes.ts';
export type { BlockServingSource } from './serving/interface.ts';
export { storeServingSource, type StoreServingSource, type StoreServingSourceDeps } from './serving/storeServingSource.ts';
export type { HeadSubscription, SyncSource } from './source/interface.ts';
export { HttpSyncSource, type HttpSyncSourceOptions } from './source/httpSyncSource.ts';
export { chainServiceTarget, type Awaitable, type ChainServiceLike, type ImportedRef, type SyncTarget } from './target.ts';
export { type SyncHead, type SyncStatus } from './wire.ts';
