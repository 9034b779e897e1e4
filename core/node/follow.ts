/**
 * Node-to-node sync inside a running node: block serving under `/xone/v1/` (every node serves what it has made
 * durable) and, with `--peer`, a follower that imports from peers through the chain thread. A follower's blocks become
 * the served head only once durable: with group commit that is after `steady()`, so nothing is announced that a crash
 * could take back.
 */
import type { Env, Hono } from 'hono';
import { createSyncRoutes, Follower, HttpSyncSource, storeServingSource, type StoreServingSource, type SyncTarget } from '../sync/index.ts';
import type { Logger } from '../log/types.ts';
import type { ChainReader } from '../store/index.ts';
import type { ChainThread } from '../chainService/chainThread.ts';
import type { HeadUpdate } from '../chainService/chainService.ts';

export interface ServingDeps {
  reader: ChainReader;
  chainId: bigint;
  submitTx: (raw: Uint8Array) => Promise<Uint8Array>;
  clientVersion: string;
}

/** The block-serving source and a mount function for the RPC app. */
export function blockServing(deps: ServingDeps): { source: StoreServingSource; mount: <E extends Env>(app: Hono<E>) => void } {
  const source = storeServingSource(deps);
  // The sync routes use no bindings of the host app, so they mount on an app of any environment type.
  return { source, mount: (app) => void app.route('/xone/v1', createSyncRoutes({ source }) as unknown as Hono<never>) };
}

export interface FollowDeps {
  chain: ChainThread;
  batch: number;
  genesisHash: Uint8Array;
  chainId: bigint;
  logger: Logger;
  /**
   * Called for each block that joined the canonical chain once it is durable, in order (a reorg's first block carries
   * what the reorg dropped); `latest` is false when a later block follows at once. The next block waits until the
   * returned promise settles (a reorg's first block spreads its work over several event-loop turns).
   */
  onDurable: (update: HeadUpdate, latest: boolean) => void | Promise<void>;
}

/** Lets the event loop run (timers, RPC requests) between two blocks being adopted. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A follower importing from `peers` (their RPC base URLs). A durable batch (up to 128 blocks) is handed to the node
 * one block per event-loop turn, in the background, so adopting it (receipts for log filters, the encoding cache)
 * never holds the main loop for the whole batch, and the next batch imports meanwhile. Reorgs happen inside the chain
 * thread (fork choice, one durable commit); their first block tells the node what left the chain.
 */
export function createFollower(peers: readonly string[], deps: FollowDeps): Follower {
  let pending: HeadUpdate[] = [];
  let adopting: Promise<void> = Promise.resolve();
  const flush = (): void => {
    const batch = pending;
    pending = [];
    adopting = adopting.then(async () => {
      for (let i = 0; i < batch.length; i++) {
        if (i > 0) await yieldToLoop();
        try {
          await deps.onDurable(batch[i], i === batch.length - 1);
        } catch (err) {
          deps.logger.error('Adopting an imported block failed', { number: batch[i].number.toString(), error: (err as Error).message });
        }
      }
    });
  };
  const target: SyncTarget = {
    head: () => deps.chain.head(),
    canonicalHash: (n) => deps.chain.canonicalHash(n),
    importBlocks: async (rlps) => {
      const updates = await deps.chain.importBlocks([...rlps]);
      pending.push(...updates);
      if (deps.batch === 0) flush();
      return updates;
    },
    steady: async () => {
      await deps.chain.steady();
      flush();
    },
    hasBlock: (hash) => deps.chain.hasBlock(hash),
  };
  const sources = peers.map((url) => new HttpSyncSource({ url, genesisHash: deps.genesisHash, chainId: deps.chainId }));
  // A signer commits every block on its own (store batch 0); its follower still hands over up to 128 blocks a call.
  return new Follower({ batch: deps.batch === 0 ? 128 : deps.batch }, { target, sources, logger: deps.logger });
}
