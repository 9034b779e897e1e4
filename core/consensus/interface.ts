/**
 * The consensus-engine seam (ARCHITECTURE.md, "Chain"): import and production ask the engine, never the algorithm.
 * Engines: Clique-compatible PoA (EIP-225) for xOne networks, and a trusted engine with no seal check for
 * `xone import` and conformance fixtures.
 */
import type { Header } from '../chain/header/index.ts';
import type { ForkChoice } from '../chain/forkChoice.ts';

/** Ancestor headers the engine may need (Clique walks back to the last checkpoint to build a signer snapshot). */
export interface HeaderReader {
  /** A header of the chain being verified, by hash; undefined when unknown. */
  headerByHash(hash: Uint8Array): Header | undefined;
}

export interface ConsensusEngine {
  readonly name: string;
  /** Checks the consensus fields and seal of `header` against its parent. Throws `ConsensusError`. */
  verifyHeader(header: Header, parent: Header, chain: HeaderReader): void;
  /** The account that produced the block (Clique: the seal's signer; trusted: the coinbase). */
  author(header: Header): Uint8Array;
  /** Which of two chains is the head (forkChoice.ts). */
  readonly forkChoice: ForkChoice;
}
