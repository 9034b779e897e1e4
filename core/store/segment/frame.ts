/**
 * Record framing of segment files: `[u32 LE payload length][u32 LE CRC-32C of payload][payload]`. The length lets a
 * reader walk a file record by record; the CRC catches torn and flipped bytes. SQLite pointers name the frame start.
 */
import { crc32c } from './crc32c.ts';

/** Bytes of framing before each payload. */
export const FRAME_HEADER_BYTES = 8;

/** Writes the frame of `payload` into `out` at `at`; returns the offset just past it. */
export function writeFrame(out: Uint8Array, at: number, payload: Uint8Array): number {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(at, payload.length, true);
  view.setUint32(at + 4, crc32c(payload), true);
  out.set(payload, at + FRAME_HEADER_BYTES);
  return at + FRAME_HEADER_BYTES + payload.length;
}

/** The length and CRC stored in a frame header. */
export interface FrameHeader {
  length: number;
  crc: number;
}

/** Reads the 8 header bytes at the start of `bytes`. */
export function readFrameHeader(bytes: Uint8Array): FrameHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, FRAME_HEADER_BYTES);
  return { length: view.getUint32(0, true), crc: view.getUint32(4, true) };
}

/** True when `payload` matches the CRC of its frame. */
export function frameCrcOk(header: FrameHeader, payload: Uint8Array): boolean {
  return crc32c(payload) === header.crc;
}
