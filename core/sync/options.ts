/** Limits and timings of the `/xone/v1/` protocol and of the follower, with their defaults (docs/sync.md). */

/** Most blocks one `/blocks` request may ask for (and that a server returns). */
export const MAX_BLOCKS_PER_REQUEST = 128;
/** Byte bound of one `/blocks` response: the server stops adding blocks before it (always at least one block). */
export const MAX_BLOCKS_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Largest raw transaction accepted by `POST /tx` (the tx pool's 128 KB size limit plus the RLP envelope). */
export const MAX_TX_BYTES = 128 * 1024 + 1024;
/** Byte bound of a `/status` or `/tx` JSON answer. */
export const MAX_JSON_RESPONSE_BYTES = 64 * 1024;
/** SSE keep-alive comment interval on `/heads` (lets a follower tell a quiet stream from a dead one). */
export const HEADS_KEEPALIVE_MS = 5_000;
/** Protocol name reported in `/status`. */
export const SYNC_PROTOCOL = 'xone/1';

/** Follower options (`--peer`, `--batch`). */
export interface FollowerOptions {
  /** Blocks per write transaction (the store's group commit), 1-128. */
  batch: number;
  /** Blocks per `/blocks` request (default: MAX_BLOCKS_PER_REQUEST). */
  requestBlocks?: number;
  /** Deadline of a `/status` or `/tx` request in ms (default 5 s). */
  statusTimeoutMs?: number;
  /** Deadline of a `/blocks` request in ms, headers and body together (default 20 s). */
  blocksTimeoutMs?: number;
  /** Status polling interval when no head stream is up (default 1 s). */
  pollMs?: number;
  /** Safety poll interval while a head stream is up (default 10 s). */
  idlePollMs?: number;
  /** How long a dropped peer stays dropped before it is tried again (default 5 min). */
  banMs?: number;
  /** Interval of progress reports (default 3 s). */
  progressMs?: number;
  /** A head unmoved this long while a peer serves a heavier chain logs `Sync stalled` (default 30 s). */
  stallMs?: number;
}

/** The follower options with every default filled in. */
export type ResolvedFollowerOptions = Required<FollowerOptions>;

/** Fills the defaults and checks the ranges. */
export function resolveFollowerOptions(o: FollowerOptions): ResolvedFollowerOptions {
  const r: ResolvedFollowerOptions = {
    batch: o.batch,
    requestBlocks: o.requestBlocks ?? MAX_BLOCKS_PER_REQUEST,
    statusTimeoutMs: o.statusTimeoutMs ?? 5_000,
    blocksTimeoutMs: o.blocksTimeoutMs ?? 20_000,
    pollMs: o.pollMs ?? 1_000,
    idlePollMs: o.idlePollMs ?? 10_000,
    banMs: o.banMs ?? 300_000,
    progressMs: o.progressMs ?? 3_000,
    stallMs: o.stallMs ?? 30_000,
  };
  if (!Number.isInteger(r.batch) || r.batch < 1 || r.batch > 128) throw new RangeError(`follower batch must be 1-128, got ${r.batch}`);
  if (!Number.isInteger(r.requestBlocks) || r.requestBlocks < 1 || r.requestBlocks > MAX_BLOCKS_PER_REQUEST)
    throw new RangeError(`requestBlocks must be 1-${MAX_BLOCKS_PER_REQUEST}, got ${r.requestBlocks}`);
  return r;
}
