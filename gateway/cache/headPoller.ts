import type { UpstreamPool } from '../upstream/pool.ts';
import type { BlockId } from './head.ts';
import type { HeadTracker } from './headTracker.ts';

/** Reads `{number, hash, parentHash}` from an eth_getBlockByNumber result. */
export function toBlockId(r: unknown): BlockId | undefined {
  const b = r as { number?: string; hash?: string; parentHash?: string } | null;
  if (!b || typeof b.number !== 'string' || typeof b.hash !== 'string' || typeof b.parentHash !== 'string') return undefined;
  return { number: parseInt(b.number, 16), hash: b.hash.toLowerCase(), parentHash: b.parentHash.toLowerCase() };
}

/** Fetches the block at a height or tag through the pool. */
export async function fetchBlock(pool: UpstreamPool, ref: number | string, timeoutMs: number): Promise<BlockId | undefined> {
  const tag = typeof ref === 'number' ? `0x${ref.toString(16)}` : ref;
  const fr = await pool.forwardOwn('eth_getBlockByNumber', [tag, false], timeoutMs);
  return fr.error ? undefined : toBlockId(fr.result);
}

/**
 * Feeds the tracker by polling latest/safe/finalized (a node without the `safe`/`finalized` tags gets
 * latest − finalityDepth). The Node adapter can feed it from newHeads instead; both end in tracker.update.
 */
export function startHeadPoller(pool: UpstreamPool, tracker: HeadTracker, opts: { pollMs: number; finalityDepth: number }): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    try {
      const [latest, safe, finalized] = await Promise.all(
        (['latest', 'safe', 'finalized'] as const).map((t) => fetchBlock(pool, t, Math.max(1000, opts.pollMs)).catch(() => undefined)),
      );
      if (latest) {
        const fallback = Math.max(0, latest.number - opts.finalityDepth);
        await tracker.update(latest, safe?.number ?? fallback, finalized?.number ?? fallback);
      }
    } finally {
      if (!stopped) timer = setTimeout(tick, opts.pollMs);
    }
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
