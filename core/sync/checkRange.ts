/** The checks a served range passes before import: one identity per block, consecutive numbers, internal links. */
import { equalBytes } from '../primitives/hex.ts';
import { blockRef, type BlockRef } from './blockRef.ts';
import { SyncError } from './errors.ts';

/** Identities of `rlps`, which must be blocks `from`, `from + 1`, … each the parent of the next; SYNC_PEER_BAD_RESPONSE otherwise. */
export function checkRange(peer: string, rlps: readonly Uint8Array[], from: bigint, claimedHead?: bigint): BlockRef[] {
  if (rlps.length === 0)
    throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${peer}: no blocks from ${from} though it reported head ${claimedHead}`, { peer });
  const refs = rlps.map((r) => blockRef(r, peer));
  refs.forEach((r, i) => {
    if (r.number !== from + BigInt(i))
      throw new SyncError('SYNC_PEER_BAD_RESPONSE', `peer ${peer}: block ${i} of a range from ${from} is number ${r.number}`, { peer });
    if (i > 0 && !equalBytes(r.parentHash, refs[i - 1].hash))
      throw new SyncError(
        'SYNC_PEER_BAD_RESPONSE',
        `peer ${peer}: block ${r.number} does not link to block ${r.number - 1n} of the same range`,
        { peer },
      );
  });
  return refs;
}
