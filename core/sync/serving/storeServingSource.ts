/**
 * A `BlockServingSource` over a chain store reader: what a producer (or a follower that serves others) mounts.
 * Give it a read-only connection where one exists: it then sees committed, i.e. durable, blocks only. Heads are
 * pushed in by the node with `announce()` after each durable commit (never before: see ARCHITECTURE.md).
 */
import { rawBlock } from '../../store/read/rawBlock.ts';
import type { ChainReader } from '../../store/index.ts';
import { CLIENT_IDENTITY } from '../../version.ts';
import { SYNC_PROTOCOL } from '../options.ts';
import type { SyncHead, SyncStatus } from '../wire.ts';
import type { BlockServingSource } from './interface.ts';

/** Inputs of `storeServingSource`. */
export interface StoreServingSourceDeps {
  reader: ChainReader;
  chainId: bigint;
  /** The tx pool's entry point (geth error text on refusal). */
  submitTx: (raw: Uint8Array) => Promise<Uint8Array>;
  clientVersion?: string;
}

/** A serving source plus `announce`, the node's hook for each new durable head. */
export interface StoreServingSource extends BlockServingSource {
  announce(head: SyncHead): void;
}

/** Builds the source; the genesis hash is read once (it never changes for a datadir). */
export function storeServingSource({
  reader,
  chainId,
  submitTx,
  clientVersion = CLIENT_IDENTITY,
}: StoreServingSourceDeps): StoreServingSource {
  const genesisHash = reader.getCanonicalHash(0);
  if (!genesisHash) throw new Error('storeServingSource: the store has no genesis block');
  const listeners = new Set<(h: SyncHead) => void>();
  const head = (): SyncHead => {
    const marker = reader.getHead('head');
    if (!marker) return { number: 0n, hash: genesisHash };
    const td = reader.getTotalDifficulty(marker.hash);
    return { number: BigInt(marker.number), hash: marker.hash, ...(td !== undefined ? { td } : {}) };
  };
  return {
    status: (): SyncStatus => ({ protocol: SYNC_PROTOCOL, genesisHash, chainId, head: head(), clientVersion }),
    blockRlp: (number) => {
      const hash = reader.getCanonicalHash(Number(number));
      return hash ? rawBlock(reader, hash) : undefined;
    },
    snapshot: (read) => reader.snapshot(read),
    subscribeHeads: (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    submitTx,
    announce: (h) => {
      for (const cb of listeners) cb(h);
    },
  };
}
