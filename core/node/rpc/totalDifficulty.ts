/**
 * A block's total difficulty (sum of difficulties from genesis), which geth reports as `totalDifficulty` in block
 * objects of pre-merge chains (Clique included). The store keeps no TD column, so it is derived by walking parent
 * hashes to the nearest block whose TD is known. Keyed by hash, so a reorg never serves a stale value. Kept: every
 * 1,024th block (a cold walk is paid once per 1,024 blocks) and the most recent lookups (the head moves by one).
 */
import { ethereumHeaderCodec } from '../../chain/header/index.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { decodeRlp } from '../../primitives/rlp.ts';
import type { ChainReader } from '../../store/index.ts';

const CHECKPOINT_EVERY = 1024;
const RECENT = 256;

export class TotalDifficulty {
  private readonly checkpoints = new Map<string, bigint>();
  private readonly recent = new Map<string, bigint>();

  constructor(private readonly reader: ChainReader) {}

  /** TD of the stored block `hash`, or undefined when it or an ancestor is missing from the store. */
  of(hash: Uint8Array): bigint | undefined {
    const pending: { key: string; number: number; difficulty: bigint }[] = [];
    let key = bytesToHex(hash);
    let cursor = hash;
    let base = 0n;
    for (;;) {
      const known = this.recent.get(key) ?? this.checkpoints.get(key);
      if (known !== undefined) {
        base = known;
        break;
      }
      const row = this.reader.getHeaderByHash(cursor);
      if (!row) return undefined;
      const header = ethereumHeaderCodec.decode(decodeRlp(row.headerRlp), row.headerRlp);
      pending.push({ key, number: row.number, difficulty: header.difficulty });
      if (row.number === 0) break;
      cursor = row.parentHash;
      key = bytesToHex(cursor);
    }
    let td = base;
    for (let i = pending.length - 1; i >= 0; i--) {
      const p = pending[i];
      td += p.difficulty;
      if (p.number % CHECKPOINT_EVERY === 0) this.checkpoints.set(p.key, td);
    }
    this.remember(bytesToHex(hash), td);
    return td;
  }

  private remember(key: string, td: bigint): void {
    this.recent.delete(key);
    this.recent.set(key, td);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
  }
}
