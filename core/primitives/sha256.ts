/**
 * SHA-256 for the EVM's precompile 0x02, on node:crypto (OpenSSL, with the CPU's SHA instructions): ~35 µs per 50 KB
 * on this host against ~380 µs for @noble/hashes, the library's default (decision 0003).
 * stTimeConsuming/static_Call50000_sha256 hashes 50 KB 50,000 times per case.
 */
import { createHash } from 'node:crypto';

/** SHA-256 of the bytes, as a plain Uint8Array (not a Buffer). */
export function sha256(data: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(data).digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
}
