/**
 * What the follower imports into: the chain service, in-thread or behind the chain thread's message port (hence the
 * `Awaitable` results). `chainServiceTarget` adapts the ChainService API.
 */

/** A value or a promise of it (the chain thread answers over postMessage). */
export type Awaitable<T> = T | Promise<T>;

/** What the follower needs to know about an imported block. */
export interface ImportedRef {
  number: bigint;
  hash: Uint8Array;
  txHashes: readonly Uint8Array[];
}

/** Our head as the follower compares it with peers'. */
export interface TargetHead {
  number: bigint;
  hash: Uint8Array;
  /** Total difficulty of our chain (fork choice by weight); absent on a target that does not know it. */
  td?: bigint;
}

/** The follower's writer. */
export interface SyncTarget {
  head(): Awaitable<TargetHead>;
  canonicalHash(number: bigint): Awaitable<Uint8Array | undefined>;
  /**
   * Verifies (seal, parent, roots, execution) and imports in order, each block on whatever stored parent it names:
   * off the head it is stored on a side chain, and the target's fork choice makes its chain the head when it weighs
   * more (a reorg, inside the target). Returns the blocks that joined the canonical chain; throws the first invalid
   * block's error.
   */
  importBlocks(rlps: readonly Uint8Array[]): Promise<readonly ImportedRef[]>;
  /** Makes the open batch durable. */
  steady(): Awaitable<void>;
  /** Whether a block is stored (canonical or on a side chain). */
  hasBlock(hash: Uint8Array): Awaitable<boolean>;
}

/** The ChainService surface the adapter uses (structural, so core/sync does not depend on core/chainService). */
export interface ChainServiceLike {
  head(): TargetHead;
  importBlocks(rlps: readonly Uint8Array[]): Promise<readonly ImportedRef[]>;
  steady(): void;
  hasBlock(hash: Uint8Array): boolean;
  store: { getCanonicalHash(number: number): Uint8Array | undefined };
}

/** Adapts an in-thread ChainService. */
export function chainServiceTarget(service: ChainServiceLike): SyncTarget {
  return {
    head: () => service.head(),
    canonicalHash: (n) => service.store.getCanonicalHash(Number(n)),
    importBlocks: (rlps) => service.importBlocks(rlps),
    steady: () => service.steady(),
    hasBlock: (hash) => service.hasBlock(hash),
  };
}
