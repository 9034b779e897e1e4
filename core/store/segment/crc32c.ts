/**
 * The CRC-32C the segment files use. @node-rs/crc32 (SSE4.2 / ARMv8 CRC instructions) measured ~4x faster than
 * the pure-JS slicing-by-8 on 56.6 KB records (docs/decisions/ CRC-32C implementation, `npm run bench:store`);
 * the pure-JS one takes over when the native addon fails to load, and says so through `crc32cBackend`.
 */
import { createRequire } from 'node:module';
import { crc32cJs } from './crc32cJs.ts';

type Crc = (data: Uint8Array, initial?: number) => number;

function loadNative(): Crc | undefined {
  try {
    const mod = createRequire(import.meta.url)('@node-rs/crc32') as { crc32c: Crc };
    // Self-test: the standard check value of CRC-32C("123456789") is 0xE3069283.
    if (mod.crc32c(new TextEncoder().encode('123456789')) >>> 0 !== 0xe3069283) return undefined;
    return mod.crc32c;
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** Which implementation `crc32c` uses in this thread. */
export const crc32cBackend: 'native' | 'js' = native ? 'native' : 'js';

/** The native implementation when loaded (benchmarks compare it with `crc32cJs`). */
export const crc32cNative: Crc | undefined = native;

/** CRC-32C of `data` (unsigned 32-bit). */
export const crc32c: (data: Uint8Array) => number = native ? (data) => native(data) >>> 0 : (data) => crc32cJs(data);
