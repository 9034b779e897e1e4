/** The shared parts every namespace's handlers use, built once by the server. */
import { type BlockResolver } from './blocks.ts';
import { type EncodingCache } from './cache.ts';
import { type FilterManager } from './filters.ts';
import { type RpcDeps } from './interface.ts';
import { type RpcOptions } from './options.ts';
import { type SubscriptionManager } from './subscriptions.ts';

export interface RpcServices {
  options: RpcOptions;
  deps: RpcDeps;
  blocks: BlockResolver;
  cache: EncodingCache;
  filters: FilterManager;
  subscriptions: SubscriptionManager;
}
