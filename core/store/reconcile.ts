/**
 * Brings segment files back in line with what SQLite committed, at every open of the writer. SQLite is the
 * authority: bytes past a segment's committed size are from a commit that never happened and are cut; files with
 * no committed row are removed; the last committed record of each file must pass its CRC. Every check runs before
 * any change, so a refusal leaves the datadir exactly as it was.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from './errors.ts';
import { FRAME_HEADER_BYTES, frameCrcOk, readFrameHeader } from './segment/frame.ts';
import { listSegmentIds, segmentPath } from './segment/segmentFiles.ts';
import type { SegmentFs } from './segment/segmentFs.ts';
import type { StoreLogger } from './types.ts';

/** Committed pointer of one segment file. */
export interface SegmentRow {
  id: number;
  committed_size: number;
  last_offset: number;
}

/** What reconcile changed. */
export interface ReconcileReport {
  /** Files cut back to their committed size, and the bytes cut. */
  cutFiles: number;
  cutBytes: number;
  /** Files no committed row references, removed, and their bytes. */
  removedFiles: number;
  removedBytes: number;
  /** Boundary records whose CRC was checked. */
  checkedRecords: number;
}

/** Reads the committed pointers. */
function readSegmentRows(db: BetterSqlite3.Database): SegmentRow[] {
  return db.prepare('SELECT id, committed_size, last_offset FROM segments ORDER BY id').all() as SegmentRow[];
}

/** Checks the record that ends at the committed size of `row`; throws STORE_SEGMENT_CORRUPT naming file and offset. */
function checkBoundaryRecord(file: string, row: SegmentRow): void {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    readSync(fd, header, 0, FRAME_HEADER_BYTES, row.last_offset);
    const { length, crc } = readFrameHeader(header);
    const fail = (why: string): never => {
      throw new StoreError('STORE_SEGMENT_CORRUPT', `segment ${file}: committed record at offset ${row.last_offset} ${why}`, {
        file,
        offset: row.last_offset,
      });
    };
    if (row.last_offset + FRAME_HEADER_BYTES + length !== row.committed_size)
      fail(`has length ${length}, which does not end at the committed size ${row.committed_size}`);
    const payload = Buffer.alloc(length);
    readSync(fd, payload, 0, length, row.last_offset + FRAME_HEADER_BYTES);
    if (!frameCrcOk({ length, crc }, payload)) fail('fails its CRC-32C check');
  } finally {
    closeSync(fd);
  }
}

/** Reconciles `segmentsDir` with the committed rows; logs one line with what it cut. */
export function reconcile(db: BetterSqlite3.Database, segmentsDir: string, fs: SegmentFs, logger: StoreLogger): ReconcileReport {
  const rows = readSegmentRows(db);
  const committed = new Map(rows.map((r) => [r.id, r]));
  const cuts: { id: number; from: number; to: number }[] = [];
  // Phase 1: check everything; throw before touching any file.
  for (const row of rows) {
    const file = segmentPath(segmentsDir, row.id);
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      throw new StoreError('STORE_SEGMENT_MISSING', `segment ${file} is missing; SQLite has ${row.committed_size} committed bytes in it`, {
        file,
        committedSize: row.committed_size,
      });
    }
    if (size < row.committed_size) {
      throw new StoreError(
        'STORE_SEGMENT_MISSING',
        `segment ${file} has ${size} bytes; SQLite has ${row.committed_size} committed bytes in it (truncated)`,
        {
          file,
          size,
          committedSize: row.committed_size,
        },
      );
    }
    checkBoundaryRecord(file, row);
    if (size > row.committed_size) cuts.push({ id: row.id, from: size, to: row.committed_size });
  }
  const strays = listSegmentIds(segmentsDir).filter((id) => !committed.has(id));
  // Phase 2: cut and remove, then make the changes durable.
  const report: ReconcileReport = { cutFiles: 0, cutBytes: 0, removedFiles: 0, removedBytes: 0, checkedRecords: rows.length };
  for (const cut of cuts) {
    const fd = fs.openForWrite(segmentPath(segmentsDir, cut.id), false);
    try {
      fs.truncate(fd, cut.to);
      fs.fsync(fd);
    } finally {
      fs.close(fd);
    }
    report.cutFiles++;
    report.cutBytes += cut.from - cut.to;
  }
  for (const id of strays) {
    const file = segmentPath(segmentsDir, id);
    report.removedBytes += statSync(file).size;
    fs.unlink(file);
    report.removedFiles++;
  }
  if (report.removedFiles > 0) fs.fsyncDir(segmentsDir);
  logger.info({ ...report, segments: rows.length }, 'reconcile');
  return report;
}
