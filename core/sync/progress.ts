/**
 * Sync progress: rates over the last report interval, head, target and ETA. The follower emits one report every few
 * seconds while it is behind; the node renders it as a TTY line (`formatProgress`) or a log line.
 */

/** One progress report. */
export interface SyncProgress {
  head: bigint;
  /** The best head any live peer reported. */
  target: bigint;
  blocksPerSec: number;
  txPerSec: number;
  /** Seconds to reach `target` at the current rate; undefined while the rate is 0. */
  etaSec: number | undefined;
  peers: number;
}

/** Counts imported blocks and transactions and turns them into a report per interval. */
export class ProgressMeter {
  private blocks = 0;
  private txs = 0;
  private since: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.since = now();
  }

  add(blocks: number, txs: number): void {
    this.blocks += blocks;
    this.txs += txs;
  }

  /** Milliseconds since the last report. */
  elapsedMs(): number {
    return this.now() - this.since;
  }

  /** The report for the interval that ends now; starts the next one. */
  take(head: bigint, target: bigint, peers: number): SyncProgress {
    const t = this.now();
    const sec = Math.max(1e-3, (t - this.since) / 1000);
    const blocksPerSec = this.blocks / sec;
    const txPerSec = this.txs / sec;
    this.blocks = 0;
    this.txs = 0;
    this.since = t;
    const left = Number(target > head ? target - head : 0n);
    return { head, target, blocksPerSec, txPerSec, etaSec: left === 0 ? 0 : blocksPerSec > 0 ? left / blocksPerSec : undefined, peers };
  }
}

/** One line for a TTY: `sync 1,024/5,000 (20.5%) 812 blk/s 9,744 tx/s eta 5s peers 1`. */
export function formatProgress(p: SyncProgress): string {
  const pct = p.target > 0n ? ` (${((Number(p.head) / Number(p.target)) * 100).toFixed(1)}%)` : '';
  const eta = p.etaSec === undefined ? '?' : p.etaSec < 120 ? `${Math.ceil(p.etaSec)}s` : `${Math.ceil(p.etaSec / 60)}m`;
  const int = (n: number | bigint): string => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  return `sync ${int(p.head)}/${int(p.target)}${pct} ${int(p.blocksPerSec)} blk/s ${int(p.txPerSec)} tx/s eta ${eta} peers ${p.peers}`;
}
