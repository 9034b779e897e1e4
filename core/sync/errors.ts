/**
 * Typed errors of node-to-node sync. A peer's fault (wrong chain, garbage, a hung response) and a local failure are
 * different codes, because the follower drops the peer for the first kind and stops for the second.
 */
import { XoneError } from '../errors.ts';

/** Stable codes of every error core/sync raises on purpose. */
export type SyncErrorCode =
  | 'SYNC_PEER_WRONG_CHAIN' // the peer's genesis hash or chain id differs from ours
  | 'SYNC_PEER_TIMEOUT' // a request got no complete answer within its deadline
  | 'SYNC_PEER_TOO_LARGE' // a response exceeded its byte bound
  | 'SYNC_PEER_BAD_RESPONSE' // malformed status/JSON/HTTP status, wrong block numbers, truncated data
  | 'SYNC_PEER_BAD_BLOCK' // a served block failed verification (seal, parent link, roots, execution)
  | 'SYNC_PEER_UNREACHABLE' // connection refused or reset before an answer
  | 'SYNC_TX_REFUSED' // the producer refused a forwarded transaction (message is the producer's, geth style)
  | 'SYNC_BAD_REQUEST'; // a malformed request to the block-serving routes

/** Raised by core/sync; `meta` names the peer and the values that explain it. */
export class SyncError extends XoneError<SyncErrorCode> {}

/** True when the error is the peer's fault (drop it), as opposed to a local failure or an unreachable peer. */
export function isPeerFault(err: unknown): boolean {
  if (err instanceof SyncError)
    return err.code !== 'SYNC_PEER_UNREACHABLE' && err.code !== 'SYNC_PEER_TIMEOUT' && err.code !== 'SYNC_TX_REFUSED';
  return false;
}
