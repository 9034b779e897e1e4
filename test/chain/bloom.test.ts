/** Logs bloom against a second, bigint-based reading of the Yellow Paper's M3:2048 definition. */
import { describe, expect, it } from 'vitest';
import { bloomMayContain, bloomUnion, logsBloom } from '../../core/chain/bloom.ts';
import { bigIntToBytes, bytesToHex, padLeft } from '../../core/primitives/hex.ts';
import { keccak256 } from '../../core/primitives/keccak.ts';

/** The bloom as a 2048-bit big-endian integer with bit k set for each 11-bit index k. */
function referenceBloom(items: Uint8Array[]): Uint8Array {
  let b = 0n;
  for (const item of items) {
    const h = keccak256(item);
    for (let i = 0; i < 6; i += 2) b |= 1n << BigInt(((h[i] << 8) | h[i + 1]) % 2048);
  }
  return padLeft(bigIntToBytes(b), 256);
}

describe('logsBloom', () => {
  const address = new Uint8Array(20).fill(0x11);
  const topics = [new Uint8Array(32).fill(0x22), new Uint8Array(32).fill(0x33)];

  it('default: matches the reference definition', () => {
    expect(bytesToHex(logsBloom([{ address, topics, data: new Uint8Array(5) }]))).toBe(bytesToHex(referenceBloom([address, ...topics])));
    expect(logsBloom([]).every((b) => b === 0)).toBe(true);
  });

  it('behavior: membership and union', () => {
    const a = logsBloom([{ address, topics: [], data: new Uint8Array(0) }]);
    const b = logsBloom([{ address: new Uint8Array(20), topics, data: new Uint8Array(0) }]);
    const u = bloomUnion([a, b]);
    expect(bloomMayContain(u, address) && bloomMayContain(u, topics[0]) && bloomMayContain(u, topics[1])).toBe(true);
    expect(bloomMayContain(a, topics[0])).toBe(false);
  });
});
