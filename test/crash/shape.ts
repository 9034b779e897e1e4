/** Block shape of the crash test: small bodies (fast to write and verify), a few transactions and logs. */
import type { SyntheticShape } from '../../core/bench/store/syntheticBlocks.ts';

/** Shared by the writer child and the checking parent so both generate the same chain. */
export const CRASH_SHAPE: SyntheticShape = { bodyBytes: 1500, receiptsBytes: 300, txs: 2, logsPerTx: 1, headerExtraBytes: 500 };
