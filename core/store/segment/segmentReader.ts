/**
 * Reads framed records back by pointer and checks each against its CRC. Used by the owning store and by read-only
 * handles in other threads; it opens files read-only and keeps their descriptors until `close()`.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { StoreError } from '../errors.ts';
import { FRAME_HEADER_BYTES, frameCrcOk, readFrameHeader } from './frame.ts';
import { segmentPath } from './segmentFiles.ts';

/** Reader of segment records; one per connection. */
export class SegmentReader {
  private readonly fds = new Map<number, number>();

  constructor(private readonly segmentsDir: string) {}

  /**
   * The payload of the record whose frame starts at `offset` in segment `id`; `length` is the payload length the
   * index recorded. A short file, a length mismatch or a CRC mismatch is corruption and names file and offset.
   */
  read(id: number, offset: number, length: number): Uint8Array {
    const fd = this.fd(id);
    const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
    const n = readSync(fd, buf, 0, buf.length, offset);
    const file = segmentPath(this.segmentsDir, id);
    if (n !== buf.length) {
      throw new StoreError(
        'STORE_SEGMENT_MISSING',
        `segment ${file} ends before the record at offset ${offset} (read ${n} of ${buf.length} bytes)`,
        {
          file,
          offset,
          expected: buf.length,
          read: n,
        },
      );
    }
    const header = readFrameHeader(buf);
    const payload = new Uint8Array(buf.buffer, buf.byteOffset + FRAME_HEADER_BYTES, length);
    if (header.length !== length || !frameCrcOk(header, payload)) {
      throw new StoreError(
        'STORE_SEGMENT_CORRUPT',
        `segment ${file}: record at offset ${offset} fails its ${header.length !== length ? 'length' : 'CRC-32C'} check`,
        {
          file,
          offset,
          lengthInFrame: header.length,
          lengthInIndex: length,
        },
      );
    }
    return payload;
  }

  /** Closes every descriptor (a later read reopens). */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private fd(id: number): number {
    let fd = this.fds.get(id);
    if (fd === undefined) {
      const file = segmentPath(this.segmentsDir, id);
      try {
        fd = openSync(file, 'r');
      } catch (err) {
        throw new StoreError('STORE_SEGMENT_MISSING', `segment ${file} cannot be opened: ${(err as Error).message}`, { file });
      }
      this.fds.set(id, fd);
    }
    return fd;
  }
}
