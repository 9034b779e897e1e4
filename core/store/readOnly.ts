/**
 * Read-only handles for threads other than the owner (RPC, metrics, block serving). They see only committed data,
 * and committed data only points at synced segment bytes, so nothing they read can vanish after a crash.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { defaultStoreOptions } from './options.ts';
import { ChainReader, type ReaderFaults } from './read/chainReader.ts';
import type { HeadMarker } from './types.ts';
import { SEGMENTS_DIR } from './segment/segmentFiles.ts';
import { SegmentReader } from './segment/segmentReader.ts';
import { openReaderDatabase } from './sqlite/openDatabase.ts';

/** A read-only view of a datadir; close it when done. */
export class ReadOnlyChainStore extends ChainReader {
  /** A second connection, for `settle()`: the pin moves to it only once it is known to see the same head. */
  private spare: BetterSqlite3.Database | undefined;
  private readonly datadir: string;

  constructor(datadir: string, db: BetterSqlite3.Database, segments: SegmentReader, deadlineMs: number, faults?: ReaderFaults) {
    super(db, segments, deadlineMs, faults);
    this.datadir = datadir;
  }

  /**
   * Pins this handle to the latest committed state: ends the snapshot pinned before (if any) and opens a read
   * transaction, started by reading the head marker, which is returned. Until the next `pin()` every read of this
   * handle sees that one snapshot, whatever the writer commits meanwhile (a reorg included). The node pins each time
   * it adopts a head, so its RPC reads always agree with the head it serves.
   */
  pin(): HeadMarker | undefined {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.exec('BEGIN');
    return this.getHead('head');
  }

  /**
   * Lets the WAL be reset while pinned (a reader that always holds a snapshot would make it grow without bound):
   * after the writer checkpointed (`ChainStore.checkpoint`), pins the spare connection at the latest commit; if its
   * head is `head` (what the current pin serves: nothing the node has not adopted), the pin moves there and the old
   * snapshot ends, else the spare lets go. A snapshot begun on a fully checkpointed WAL reads the database file, which
   * is what allows the writer to start the WAL over. Returns whether the pin moved.
   */
  settle(head: Uint8Array): boolean {
    this.spare ??= openReaderDatabase(this.datadir);
    const spare = this.spare;
    spare.exec('BEGIN');
    const marker = spare.prepare('SELECT hash FROM heads WHERE name = ?').pluck().get('head') as Uint8Array | undefined;
    if (marker === undefined || Buffer.compare(marker, head) !== 0) {
      spare.exec('COMMIT');
      return false;
    }
    const old = this.db;
    this.useConnection(spare);
    if (old.inTransaction) old.exec('COMMIT');
    this.spare = old;
    return true;
  }

  /**
   * Bytes of the datadir's write-ahead log (the node settles its pin when it grows). Asked once per block on the
   * main loop: through libuv's thread pool, since a stat of the file the writer is fsyncing took ~80 ms once.
   */
  async walBytes(): Promise<number> {
    try {
      return (await stat(join(this.datadir, 'chain.sqlite-wal'))).size;
    } catch {
      return 0;
    }
  }

  /** Ends a pinned snapshot: reads see each commit again. */
  unpin(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** Closes the connections and segment descriptors. */
  close(): void {
    this.unpin();
    this.segments.close();
    this.db.close();
    this.spare?.close();
  }
}

/** Opens a read-only handle; every read has a deadline (`readDeadlineMs`, default 2 s). `faults` are test seams. */
export function openReadOnly(datadir: string, options: { readDeadlineMs?: number; faults?: ReaderFaults } = {}): ReadOnlyChainStore {
  const db = openReaderDatabase(datadir);
  return new ReadOnlyChainStore(
    datadir,
    db,
    new SegmentReader(join(datadir, SEGMENTS_DIR)),
    options.readDeadlineMs ?? defaultStoreOptions.readDeadlineMs,
    options.faults,
  );
}
