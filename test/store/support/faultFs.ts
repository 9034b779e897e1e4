/**
 * Test stand-ins for the disk under the segment writer (the only fakes in the store tests: injected faults).
 * `PowerLossFs` remembers what was fsynced and can drop everything that was not, as a power cut would;
 * `FullDiskFs` fails writes with ENOSPC once a byte budget is spent, as a full disk would.
 */
import { fstatSync } from 'node:fs';
import { nodeSegmentFs, type SegmentFs } from '../../../core/store/segment/segmentFs.ts';

/** Drops unsynced segment writes on `powerCut()`. */
export class PowerLossFs implements SegmentFs {
  private readonly paths = new Map<number, string>();
  private readonly synced = new Map<string, number>();
  private readonly unsyncedNames = new Set<string>();

  openForWrite(path: string, create: boolean): number {
    const fd = nodeSegmentFs.openForWrite(path, create);
    this.paths.set(fd, path);
    if (create) this.unsyncedNames.add(path);
    if (!this.synced.has(path)) this.synced.set(path, create ? 0 : fstatSync(fd).size);
    return fd;
  }
  write(fd: number, data: Uint8Array, position: number): void {
    nodeSegmentFs.write(fd, data, position);
  }
  fsync(fd: number): void {
    nodeSegmentFs.fsync(fd);
    this.synced.set(this.paths.get(fd) as string, fstatSync(fd).size);
  }
  fsyncDir(path: string): void {
    nodeSegmentFs.fsyncDir(path);
    this.unsyncedNames.clear();
  }
  truncate(fd: number, length: number): void {
    nodeSegmentFs.truncate(fd, length);
    const path = this.paths.get(fd) as string;
    this.synced.set(path, Math.min(this.synced.get(path) ?? 0, length));
  }
  close(fd: number): void {
    nodeSegmentFs.close(fd);
    this.paths.delete(fd);
  }
  unlink(path: string): void {
    nodeSegmentFs.unlink(path);
    this.synced.delete(path);
    this.unsyncedNames.delete(path);
  }

  /** The power cut: files created since the last directory fsync vanish, others lose their unsynced tail. */
  powerCut(): { droppedBytes: number; droppedFiles: number } {
    let droppedBytes = 0;
    let droppedFiles = 0;
    for (const [path, size] of this.synced) {
      const fd = nodeSegmentFs.openForWrite(path, false);
      const actual = fstatSync(fd).size;
      if (this.unsyncedNames.has(path)) {
        nodeSegmentFs.close(fd);
        nodeSegmentFs.unlink(path);
        droppedFiles++;
        droppedBytes += actual;
        continue;
      }
      droppedBytes += actual - size;
      nodeSegmentFs.truncate(fd, size);
      nodeSegmentFs.close(fd);
    }
    return { droppedBytes, droppedFiles };
  }
}

/** Fails a write with ENOSPC once `budget` bytes were written (writing the part that fits first, like a real disk). */
export class FullDiskFs implements SegmentFs {
  constructor(public budget: number) {}
  openForWrite = nodeSegmentFs.openForWrite;
  fsync = nodeSegmentFs.fsync;
  fsyncDir = nodeSegmentFs.fsyncDir;
  truncate = nodeSegmentFs.truncate;
  close = nodeSegmentFs.close;
  unlink = nodeSegmentFs.unlink;
  write(fd: number, data: Uint8Array, position: number): void {
    const fits = Math.max(0, Math.min(data.length, this.budget));
    if (fits > 0) nodeSegmentFs.write(fd, data.subarray(0, fits), position);
    this.budget -= fits;
    if (fits < data.length) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  }
}
