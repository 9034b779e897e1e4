/**
 * Appends framed records to the active segment file and rolls over to a new file at a size limit. Nothing here is
 * durable until `sync()`: it fsyncs every file written since the last sync and, when a file was created, the
 * segments directory. The store calls `sync()` right before its SQLite COMMIT (the publication order).
 */
import { FRAME_HEADER_BYTES, writeFrame } from './frame.ts';
import { segmentPath } from './segmentFiles.ts';
import type { SegmentFs } from './segmentFs.ts';

/** Where the records of one append landed. */
export interface AppendResult {
  segment: number;
  /** Frame start offset of each payload, in order. */
  offsets: number[];
  /** Size of the segment file after the append (the new committed size once it commits). */
  endSize: number;
}

/** A position to roll back to (taken before a block, restored when the block fails). */
export interface WriterMark {
  id: number;
  size: number;
}

/** Counters of flushes this writer issued, for benchmarks and metrics. */
export interface WriterStats {
  fileSyncs: number;
  dirSyncs: number;
  bytesAppended: number;
}

/** Options of a segment writer. */
export interface SegmentWriterOptions {
  segmentsDir: string;
  /** Roll over to a new file when an append would pass this size (a record larger than it gets a file of its own). */
  maxSegmentBytes: number;
  /** The last committed segment (id and committed size), or none yet. */
  active?: { id: number; size: number };
  /**
   * False (the dev chain's 'process-exit' commits, decision 0036): `sync()` leaves the written bytes to the OS and
   * only `flushToDisk()` fsyncs them. Default true.
   */
  fsync?: boolean;
}

/** Append-only writer of segment files; one per store, used by the owning thread only. */
export class SegmentWriter {
  readonly stats: WriterStats = { fileSyncs: 0, dirSyncs: 0, bytesAppended: 0 };
  private activeId: number;
  private activeSize: number;
  private activeFd: number | undefined;
  /** Files written since the last sync, by id. */
  private readonly dirty = new Map<number, number>();
  private createdSinceSync = false;

  constructor(
    private readonly options: SegmentWriterOptions,
    private readonly deps: { fs: SegmentFs },
  ) {
    this.activeId = options.active?.id ?? 0;
    this.activeSize = options.active?.size ?? 0;
    if (options.active) this.activeFd = deps.fs.openForWrite(segmentPath(options.segmentsDir, this.activeId), false);
  }

  /** Current position; pass to `rollbackTo` to undo everything appended after it. */
  mark(): WriterMark {
    return { id: this.activeId, size: this.activeSize };
  }

  /** Frames and appends `payloads` as consecutive records of one segment file. */
  append(payloads: Uint8Array[]): AppendResult {
    let total = 0;
    for (const p of payloads) total += FRAME_HEADER_BYTES + p.length;
    if (this.activeFd === undefined || (this.activeSize > 0 && this.activeSize + total > this.options.maxSegmentBytes)) this.rollover();
    const buf = new Uint8Array(total);
    const offsets: number[] = [];
    let at = 0;
    for (const p of payloads) {
      offsets.push(this.activeSize + at);
      at = writeFrame(buf, at, p);
    }
    const fd = this.activeFd as number;
    this.dirty.set(this.activeId, fd);
    try {
      this.deps.fs.write(fd, buf, this.activeSize);
    } catch (err) {
      // A short write (full disk) may have left part of the frame: cut it so the file ends at a record boundary.
      this.tryTruncate(fd, this.activeSize);
      throw err;
    }
    this.activeSize += total;
    this.stats.bytesAppended += total;
    return { segment: this.activeId, offsets, endSize: this.activeSize };
  }

  /** True when records were appended since the last sync. */
  get hasUnsynced(): boolean {
    return this.dirty.size > 0;
  }

  /**
   * Makes every append so far durable: fsync each file written, then the directory if a file was created. With
   * `fsync: false` the appends are already in the OS's page cache (they survive the process): nothing is done, and
   * the files written stay listed (and open) for `flushToDisk()`.
   */
  sync(): void {
    if (this.options.fsync !== false) this.flushToDisk();
  }

  /** fsyncs every file written since the last flush (and the directory when a file was created), whatever the mode. */
  flushToDisk(): void {
    for (const [id, fd] of this.dirty) {
      this.deps.fs.fsync(fd);
      this.stats.fileSyncs++;
      if (id !== this.activeId) this.deps.fs.close(fd);
    }
    this.dirty.clear();
    if (this.createdSinceSync) {
      this.deps.fs.fsyncDir(this.options.segmentsDir);
      this.stats.dirSyncs++;
      this.createdSinceSync = false;
    }
  }

  /** Undoes appends after `mark`: removes files created since and cuts the mark's file back to its size. */
  rollbackTo(mark: WriterMark): void {
    let fd = this.activeFd;
    while (this.activeId > mark.id) {
      const f = fd ?? this.dirty.get(this.activeId);
      if (f !== undefined) this.deps.fs.close(f);
      this.dirty.delete(this.activeId);
      this.deps.fs.unlink(segmentPath(this.options.segmentsDir, this.activeId));
      this.activeId--;
      fd = undefined;
    }
    this.activeFd = fd;
    this.activeSize = mark.size;
    if (mark.id === 0) return;
    if (this.activeFd === undefined) {
      this.activeFd = this.dirty.get(mark.id) ?? this.deps.fs.openForWrite(segmentPath(this.options.segmentsDir, mark.id), false);
    }
    this.deps.fs.truncate(this.activeFd, mark.size);
  }

  /** Closes every file (appends not synced stay on disk for reconcile to cut). */
  close(): void {
    const fds = new Set(this.dirty.values());
    if (this.activeFd !== undefined) fds.add(this.activeFd);
    for (const fd of fds) this.deps.fs.close(fd);
    this.dirty.clear();
    this.activeFd = undefined;
  }

  private rollover(): void {
    // The previous file stays in `dirty` (if written) so the next sync still flushes it before the COMMIT.
    if (this.activeFd !== undefined && !this.dirty.has(this.activeId)) this.deps.fs.close(this.activeFd);
    this.activeId++;
    this.activeFd = this.deps.fs.openForWrite(segmentPath(this.options.segmentsDir, this.activeId), true);
    this.activeSize = 0;
    this.createdSinceSync = true;
  }

  private tryTruncate(fd: number, size: number): void {
    try {
      this.deps.fs.truncate(fd, size);
    } catch {
      // Reconcile cuts whatever stays past the committed size at the next open.
    }
  }
}
