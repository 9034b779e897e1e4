/**
 * SHA-256 for the EVM's precompile 0x02, on node:crypto (OpenSSL, with the CPU's SHA instructions): ~35 µs per 50 KB
 * on this host against ~380 µs for @noble/hashes, the library's default (decision 0003).
 * stTimeConsuming/static_Call50000_sha256 hashes 50 KB 50,000 times per case. The one-shot `hash` makes no Hash
 * object: ~2.5x faster than `createHash(...).update().digest()` for the short inputs contracts hash most (64 bytes:
 * ~1.3 against ~3.2 µs), which was ~2 % of a 10-call eth_simulateV1 of the trace contracts (issue #15).
 */
import { hash } from 'node:crypto';

/** SHA-256 of the bytes, as a plain Uint8Array (not a Buffer). */
export function sha256(data: Uint8Array): Uint8Array {
  const digest = hash('sha256', data, 'buffer');
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
}
