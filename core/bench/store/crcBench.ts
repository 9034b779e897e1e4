/** CRC-32C throughput of the native addon and the pure-JS slicing-by-8 on the spike's 56.6 KB records. */
import { crc32cNative } from '../../store/segment/crc32c.ts';
import { crc32cJs } from '../../store/segment/crc32cJs.ts';
import { round } from './stats.ts';

function gbPerSecond(fn: (d: Uint8Array) => number, data: Uint8Array, minMs: number): number {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < 50; i++) fn(data);
    n += 50;
    elapsed = performance.now() - start;
  }
  return round((n * data.length) / (elapsed / 1000) / 1e9, 2);
}

/** GB/s of each implementation and native ÷ JS. */
export function measureCrc(recordBytes: number, minMs = 300): { nativeGBps: number | null; jsGBps: number; nativeOverJs: number | null } {
  const data = new Uint8Array(recordBytes);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  gbPerSecond(crc32cJs, data, 50); // warm-up
  const jsGBps = gbPerSecond(crc32cJs, data, minMs);
  if (!crc32cNative) return { nativeGBps: null, jsGBps, nativeOverJs: null };
  const native = crc32cNative;
  gbPerSecond((d) => native(d), data, 50);
  const nativeGBps = gbPerSecond((d) => native(d), data, minMs);
  return { nativeGBps, jsGBps, nativeOverJs: round(nativeGBps / jsGBps, 2) };
}
