/**
 * Read-only handles for threads other than the owner (RPC, metrics, block serving). They see only committed data,
 * and committed data only points at synced segment bytes, so nothing they read can vanish after a crash.
 */
import { join } from 'node:path';
import { defaultStoreOptions } from './options.ts';
import { ChainReader, type ReaderFaults } from './read/chainReader.ts';
import { SEGMENTS_DIR } from './segment/segmentFiles.ts';
import { SegmentReader } from './segment/segmentReader.ts';
import { openReaderDatabase } from './sqlite/openDatabase.ts';

/** A read-only view of a datadir; close it when done. */
export class ReadOnlyChainStore extends ChainReader {
  /** Closes the connection and segment descriptors. */
  close(): void {
    this.segments.close();
    this.db.close();
  }
}

/** Opens a read-only handle; every read has a deadline (`readDeadlineMs`, default 2 s). `faults` are test seams. */
export function openReadOnly(datadir: string, options: { readDeadlineMs?: number; faults?: ReaderFaults } = {}): ReadOnlyChainStore {
  const db = openReaderDatabase(datadir);
  return new ReadOnlyChainStore(
    db,
    new SegmentReader(join(datadir, SEGMENTS_DIR)),
    options.readDeadlineMs ?? defaultStoreOptions.readDeadlineMs,
    options.faults,
  );
}
