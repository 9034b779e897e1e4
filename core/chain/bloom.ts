/**
 * The 2048-bit logs bloom of the Yellow Paper (section 4.3.1, M3:2048): for each log address and topic, three bits
 * chosen by the low 11 bits of the first three byte pairs of its keccak256. Receipts carry one per transaction, the
 * header the union over the block; eth_getLogs uses them to skip blocks.
 */
import { keccak256 } from '../primitives/keccak.ts';
import type { Log } from './receipt/types.ts';

/** Bytes in a bloom. */
const BLOOM_BYTES = 256;

function bloomBits(data: Uint8Array, apply: (byteIndex: number, mask: number) => boolean): boolean {
  const h = keccak256(data);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    if (!apply(BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7))) return false;
  }
  return true;
}

/** Sets the three bits of `data` in `bloom` (mutates). */
function bloomAdd(bloom: Uint8Array, data: Uint8Array): void {
  bloomBits(data, (i, mask) => {
    bloom[i] |= mask;
    return true;
  });
}

/** True when all three bits of `data` are set: `data` may be in the set (false = certainly not). */
export function bloomMayContain(bloom: Uint8Array, data: Uint8Array): boolean {
  return bloomBits(data, (i, mask) => (bloom[i] & mask) !== 0);
}

/** The bloom of a list of logs (a receipt's). */
export function logsBloom(logs: readonly Log[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const topic of log.topics) bloomAdd(bloom, topic);
  }
  return bloom;
}

/** OR of blooms (a block's bloom from its receipts'). */
export function bloomUnion(blooms: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(BLOOM_BYTES);
  for (const b of blooms) for (let i = 0; i < BLOOM_BYTES; i++) out[i] |= b[i];
  return out;
}
