/**
 * The file operations the segment writer uses, behind an interface so a test can stand in for the disk (power loss
 * drops unsynced writes; a full disk fails a write) while everything else stays real. `nodeSegmentFs` is the disk.
 */
import * as fs from 'node:fs';

/** Low-level file operations on segment files and their directory. */
export interface SegmentFs {
  /** Opens an existing file for positional writes, or creates it (exclusive) when `create` is set. */
  openForWrite(path: string, create: boolean): number;
  /** Writes all of `data` at `position`; throws on a short write (ENOSPC). */
  write(fd: number, data: Uint8Array, position: number): void;
  /** fsync of one file. */
  fsync(fd: number): void;
  /** fsync of a directory, so a created or removed name survives power loss. */
  fsyncDir(path: string): void;
  truncate(fd: number, length: number): void;
  close(fd: number): void;
  unlink(path: string): void;
}

/** Writes in a loop until every byte is down: `writeSync` may return short on a nearly full disk. */
function writeAll(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.length) {
    const n = fs.writeSync(fd, data, done, data.length - done, position + done);
    if (n <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    done += n;
  }
}

/** The real disk. */
export const nodeSegmentFs: SegmentFs = {
  openForWrite: (path, create) => fs.openSync(path, create ? 'wx' : 'r+'),
  write: writeAll,
  fsync: (fd) => fs.fsyncSync(fd),
  fsyncDir: (path) => {
    const fd = fs.openSync(path, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  truncate: (fd, length) => fs.ftruncateSync(fd, length),
  close: (fd) => fs.closeSync(fd),
  unlink: (path) => fs.unlinkSync(path),
};
