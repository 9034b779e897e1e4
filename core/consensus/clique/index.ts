/** Clique-compatible PoA (EIP-225): engine, snapshot, extraData layout, seal hash. */
export { CliqueEngine, DIFF_IN_TURN, DIFF_NO_TURN, WIGGLE_MS, type CliqueEngineOptions } from './engine.ts';
export { CliqueSnapshot, NONCE_AUTH_VOTE, NONCE_DROP_VOTE } from './snapshot.ts';
export { buildCliqueExtra, EXTRA_SEAL, EXTRA_VANITY, parseCliqueExtra, type CliqueExtra } from './extraData.ts';
export { cliqueSealHash } from './sealHash.ts';
