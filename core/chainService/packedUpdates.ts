/**
 * Head updates cross the chain thread's message port with each block's transaction hashes in one buffer instead of
 * one Uint8Array per hash. A follower batch of 48 full blocks is 68,544 hashes: structured clone of that many small
 * arrays took 0.4–1.4 s on the loaded 2-core host (serialize in the chain thread, deserialize on the main loop, where
 * it showed as the longest stall of bench:follow); one buffer per block clones about 4x faster. The main thread gets
 * the same `HeadUpdate[]` back, its hashes as views into that buffer.
 */
import { concatBytes } from '../primitives/hex.ts';
import type { HeadUpdate } from './chainService.ts';

/** A HeadUpdate as it travels: `txHashes` is 32 bytes per transaction, concatenated. */
export type PackedHeadUpdate = Omit<HeadUpdate, 'txHashes'> & { txHashes: Uint8Array };

/** Packs each update's hashes (in the chain thread, before postMessage). */
export function packUpdates(updates: readonly HeadUpdate[]): PackedHeadUpdate[] {
  return updates.map((u) => ({ ...u, txHashes: u.txHashes.length > 0 ? concatBytes(...u.txHashes) : new Uint8Array(0) }));
}

/** The updates again, each hash a 32-byte view of its block's buffer (on the main thread). */
export function unpackUpdates(packed: readonly PackedHeadUpdate[]): HeadUpdate[] {
  return packed.map((p) => {
    const hashes: Uint8Array[] = new Array(p.txHashes.length / 32);
    for (let i = 0; i < hashes.length; i++) hashes[i] = p.txHashes.subarray(i * 32, i * 32 + 32);
    return { ...p, txHashes: hashes };
  });
}
