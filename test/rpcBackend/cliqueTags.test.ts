/** safe/finalized on a Clique chain (decision 0011): one signer = head, N signers = head − 1 and head − (N/2 + 1). */
import { describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../core/chain/forks.ts';
import { buildCliqueExtra } from '../../core/consensus/clique/index.ts';
import { CliqueTags } from '../../core/rpcBackend/cliqueTags.ts';

const config = (clique?: { period: number; epoch: number }): ChainConfig => ({ chainId: 1n, ...(clique ? { clique } : {}) }) as ChainConfig;
const signers = (n: number): Uint8Array[] => Array.from({ length: n }, (_, i) => new Uint8Array(20).fill(i + 1));
const extra = (n: number): Uint8Array => buildCliqueExtra(new Uint8Array(32), signers(n));

describe('CliqueTags', () => {
  it('default: a single signer (the dev chain) makes the head safe and finalized', () => {
    const tags = new CliqueTags(config({ period: 1, epoch: 30000 }), () => extra(1));
    expect(tags.safe(10n)).toBe(10n);
    expect(tags.finalized(10n)).toBe(10n);
  });

  it('behavior: with 4 signers, safe is head − 1 and finalized head − 3, never below 0, read at the last checkpoint', () => {
    const asked: bigint[] = [];
    const tags = new CliqueTags(config({ period: 1, epoch: 100 }), (n) => (asked.push(n), extra(4)));
    expect(tags.safe(250n)).toBe(249n);
    expect(tags.finalized(250n)).toBe(247n);
    expect(asked).toEqual([200n]);
    expect(tags.finalized(2n)).toBe(0n);
    expect(tags.safe(0n)).toBe(0n);
  });

  it('edge: a chain without Clique, or a missing checkpoint, keeps the head', () => {
    expect(new CliqueTags(config(), () => null).finalized(7n)).toBe(7n);
    expect(new CliqueTags(config({ period: 1, epoch: 10 }), () => null).safe(7n)).toBe(7n);
  });
});
