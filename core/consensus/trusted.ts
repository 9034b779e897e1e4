/**
 * The trusted-import engine: no seal check. Used by `xone import`, `xone blocktest` and the RPC conformance fixtures,
 * whose blocks carry ethash or NoProof seals that an xOne network never produces. Execution and every root are still
 * verified by the import pipeline.
 */
import type { Header } from '../chain/header/index.ts';
import { proofOfWorkForkChoice } from '../chain/forkChoice.ts';
import type { ConsensusEngine } from './interface.ts';

export const trustedEngine: ConsensusEngine = {
  name: 'trusted',
  verifyHeader(): void {
    // Nothing to check: the caller trusts where the blocks came from.
  },
  author(header: Header): Uint8Array {
    return header.coinbase;
  },
  // The fixtures are ethash (or past the merge) chains: their own rule, whatever engine sealed them.
  forkChoice: proofOfWorkForkChoice(),
};
