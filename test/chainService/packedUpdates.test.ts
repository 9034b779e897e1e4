/** Head updates cross the chain thread's port with packed tx hashes and come back equal, hashes in order. */
import { describe, expect, it } from 'vitest';
import type { HeadUpdate } from '../../core/chainService/chainService.ts';
import { packUpdates, unpackUpdates } from '../../core/chainService/packedUpdates.ts';

const hash = (i: number): Uint8Array => new Uint8Array(32).fill(i);
const update = (number: bigint, txs: number): HeadUpdate => ({
  number,
  hash: hash(200),
  headerRlp: new Uint8Array([0xc0]),
  txHashes: Array.from({ length: txs }, (_, i) => hash(i + 1)),
  gasUsed: 21_000n * BigInt(txs),
  timings: { recoverMs: 1, executeMs: 2, rootMs: 3, commitMs: 4, cpu: { recoverMs: 1, executeMs: 2, rootMs: 3, commitMs: 4 } },
  durable: false,
  td: 0n,
});

describe('packed head updates', () => {
  it('default: a structured-cloned round trip gives back every field and each hash in order (empty blocks too)', () => {
    const updates = [update(1n, 3), update(2n, 0), update(3n, 1)];
    const packed = structuredClone(packUpdates(updates));
    expect(packed.map((p) => p.txHashes.length)).toEqual([96, 0, 32]);
    expect(unpackUpdates(packed)).toEqual(updates);
  });
});
