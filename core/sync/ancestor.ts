/**
 * The common ancestor of our chain and a peer's longer branch (a reorg from out-of-turn blocks): walk the peer's
 * branch down from our height in small ranges (a deep range of full blocks would pass the byte bound), each linked to
 * the one above it, until a block we also have.
 */
import { equalBytes } from '../primitives/hex.ts';
import { checkRange } from './checkRange.ts';
import { SyncError } from './errors.ts';
import type { SyncSource } from './source/interface.ts';
import type { SyncTarget } from './target.ts';

/** Deepest reorg the follower resolves; a deeper fork drops the peer. */
export const MAX_REORG_DEPTH = 128;
/** Blocks per request while looking for the ancestor (16 full blocks stay far below the byte bound). */
const REORG_STEP = 16n;

/**
 * The highest block number where the peer's branch and our chain agree. `ourHead` is our height; `topParent` is the
 * parent hash of the peer's block at `ourHead + 1`. Throws SYNC_PEER_BAD_RESPONSE when the branch does not link or no
 * ancestor lies within MAX_REORG_DEPTH blocks.
 */
export async function findCommonAncestor(
  source: SyncSource,
  target: Pick<SyncTarget, 'canonicalHash'>,
  ourHead: bigint,
  topParent: Uint8Array,
): Promise<bigint> {
  const id = source.id;
  const floor = ourHead >= BigInt(MAX_REORG_DEPTH) ? ourHead - BigInt(MAX_REORG_DEPTH) : 0n;
  let expect = topParent; // the hash the peer's block at `hi` must have
  for (let hi = ourHead; hi > floor;) {
    const lo = hi - REORG_STEP + 1n > floor ? hi - REORG_STEP + 1n : floor + 1n;
    const refs = checkRange(id, await source.blocks(lo, Number(hi - lo + 1n)), lo);
    if (refs.length !== Number(hi - lo + 1n) || !equalBytes(refs[refs.length - 1].hash, expect))
      throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${id}: its branch from ${lo} to ${hi} is incomplete or does not link`, {
        peer: id,
      });
    for (let i = refs.length - 1; i >= 0; i--) {
      const mine = await target.canonicalHash(refs[i].number);
      if (mine && equalBytes(mine, refs[i].hash)) return refs[i].number;
    }
    expect = refs[0].parentHash;
    hi = lo - 1n;
  }
  const mine = await target.canonicalHash(floor);
  if (mine && equalBytes(mine, expect)) return floor;
  throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${id}: no common ancestor within ${MAX_REORG_DEPTH} blocks of our head ${ourHead}`, {
    peer: id,
  });
}
