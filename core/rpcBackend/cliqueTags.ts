/**
 * The `safe` and `finalized` block numbers of a Clique chain, as docs/decisions/0011-rpc-block-tags-poa.md defines
 * them: with N signers and K = floor(N/2) + 1, finalized = head − K and safe = head − 1; a single signer (the --dev
 * chain) makes both the head. Chains without Clique keep the head (the node serves no other finality).
 */
import type { ChainConfig } from '../chain/forks.ts';
import { parseCliqueExtra } from '../consensus/clique/index.ts';

export class CliqueTags {
  private cached: { checkpoint: bigint; signers: number } | undefined;

  constructor(
    private readonly config: ChainConfig,
    /** extraData of the canonical header at a number (null when absent). */
    private readonly extraAt: (number: bigint) => Uint8Array | null,
  ) {}

  safe(head: bigint): bigint {
    return this.signers(head) <= 1 ? head : head > 0n ? head - 1n : 0n;
  }

  finalized(head: bigint): bigint {
    const n = this.signers(head);
    if (n <= 1) return head;
    const k = BigInt(Math.floor(n / 2) + 1);
    return head > k ? head - k : 0n;
  }

  /**
   * Signer count from the last checkpoint at or below the head (votes since then are not replayed: one vote moves
   * K by at most one, and the next checkpoint corrects it).
   */
  private signers(head: bigint): number {
    const epoch = this.config.clique ? BigInt(this.config.clique.epoch) : 0n;
    if (epoch <= 0n) return 1;
    const checkpoint = head - (head % epoch);
    if (this.cached?.checkpoint === checkpoint) return this.cached.signers;
    const extra = this.extraAt(checkpoint);
    let signers = 1;
    try {
      if (extra) signers = Math.max(1, parseCliqueExtra(extra, true).signers.length);
    } catch {
      // A malformed checkpoint cannot be in a validated chain; answer as a single-signer chain rather than fail a read.
    }
    this.cached = { checkpoint, signers };
    return signers;
  }
}
