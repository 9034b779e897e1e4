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

/** The follower's writer. */
export interface SyncTarget {
  head(): Awaitable<{ number: bigint; hash: Uint8Array }>;
  canonicalHash(number: bigint): Awaitable<Uint8Array | undefined>;
  /** Verifies (seal, parent, roots, execution) and imports in order; throws the first invalid block's error. */
  importBlocks(rlps: readonly Uint8Array[]): Promise<readonly ImportedRef[]>;
  /** Makes the open batch durable. */
  steady(): Awaitable<void>;
  /** Unwinds chain and state to block `number` (a reorg); absent when the target cannot. */
  unwind?(number: bigint): Awaitable<void>;
}

/** The ChainService surface the adapter uses (structural, so core/sync does not depend on core/node). */
export interface ChainServiceLike {
  head(): { number: bigint; hash: Uint8Array };
  importBlocks(rlps: readonly Uint8Array[]): Promise<readonly ImportedRef[]>;
  steady(): void;
  store: { getCanonicalHash(number: number): Uint8Array | undefined };
  unwind?(number: bigint): void;
}

/** Adapts an in-thread ChainService. */
export function chainServiceTarget(service: ChainServiceLike): SyncTarget {
  const target: SyncTarget = {
    head: () => service.head(),
    canonicalHash: (n) => service.store.getCanonicalHash(Number(n)),
    importBlocks: (rlps) => service.importBlocks(rlps),
    steady: () => service.steady(),
  };
  if (service.unwind) target.unwind = (n) => service.unwind?.(n);
  return target;
}
