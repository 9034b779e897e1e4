/**
 * A block's total difficulty (sum of difficulties from genesis), which geth reports as `totalDifficulty` in block
 * objects of pre-merge chains (Clique included). The store keeps no TD column, so it is derived here:
 * - canonical blocks: from the nearest kept checkpoint (every 1,024th canonical block) by one range scan of the
 *   canonical headers, reading only each header's difficulty field (a cold node pays one scan from genesis, once);
 * - other blocks (a side branch): by walking parent hashes to a canonical ancestor.
 * Results are keyed by hash, so a reorg never serves a stale value.
 */
import { ethereumHeaderCodec } from '../chain/header/index.ts';
import { bytesToHex, equalBytes } from '../primitives/hex.ts';
import { headerDifficulty } from '../chain/header/index.ts';
import { decodeRlp } from '../primitives/rlp.ts';
import type { ChainReader } from '../store/index.ts';

const CHECKPOINT_EVERY = 1024;
const RECENT = 256;

export class TotalDifficulty {
  /** Canonical checkpoints by number: the block's hash (to notice a reorg) and its TD. */
  private readonly checkpoints = new Map<number, { hash: Uint8Array; td: bigint }>();
  private readonly recent = new Map<string, bigint>();
  /** The last canonical TD computed: a following head scans only the blocks after it. */
  private last: { number: number; hash: Uint8Array; td: bigint } | undefined;

  constructor(private readonly reader: ChainReader) {}

  /** TD of the stored block `hash`, or undefined when it or an ancestor is missing from the store. */
  of(hash: Uint8Array): bigint | undefined {
    const key = bytesToHex(hash);
    const hit = this.recent.get(key);
    if (hit !== undefined) return hit;
    let side = 0n;
    let cursor = hash;
    for (;;) {
      const row = this.reader.getHeaderByHash(cursor);
      if (!row) return undefined;
      if (this.isCanonical(row.number, cursor)) {
        const base = this.canonical(row.number);
        if (base === undefined) return undefined;
        const td = base + side;
        this.remember(key, td);
        return td;
      }
      side += ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp).difficulty;
      if (row.number === 0) return undefined;
      cursor = row.parentHash;
    }
  }

  /**
   * A block whose TD is already known (a produced head: the chain thread answers with it), so the head's block object
   * reads no headers for it (four store queries per produced block) and the next head scans from here.
   */
  known(hash: Uint8Array, number: number, td: bigint): void {
    this.remember(bytesToHex(hash), td);
    this.last = { number, hash, td };
  }

  /** TD of the canonical block at `number`, scanning forward from the nearest valid checkpoint. */
  private canonical(number: number): bigint | undefined {
    let from = -1;
    let td = 0n;
    const last = this.last;
    if (last && last.number <= number && this.isCanonical(last.number, last.hash)) {
      if (last.number === number) return last.td;
      from = last.number;
      td = last.td;
    }
    for (let k = Math.floor(number / CHECKPOINT_EVERY) * CHECKPOINT_EVERY; from < 0 && k >= 0; k -= CHECKPOINT_EVERY) {
      const cp = this.checkpoints.get(k);
      if (!cp) continue;
      if (this.isCanonical(k, cp.hash)) {
        from = k;
        td = cp.td;
        break;
      }
      this.checkpoints.delete(k); // reorged away
    }
    let at = from;
    let atHash: Uint8Array | undefined;
    for (const row of this.reader.canonicalHeaders(from + 1, number)) {
      if (row.number !== at + 1) return undefined; // a gap: the canonical index is incomplete
      td += headerDifficulty(row.headerRlp);
      at = row.number;
      atHash = row.hash;
      if (row.number % CHECKPOINT_EVERY === 0) this.checkpoints.set(row.number, { hash: row.hash, td });
    }
    if (at !== number) return undefined;
    if (atHash) this.last = { number, hash: atHash, td };
    return td;
  }

  private isCanonical(number: number, hash: Uint8Array): boolean {
    const canonical = this.reader.getCanonicalHash(number);
    return canonical !== undefined && equalBytes(canonical, hash);
  }

  private remember(key: string, td: bigint): void {
    this.recent.set(key, td);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
  }
}

export { headerDifficulty };
