/**
 * Starts the node's chain thread on its own, so a caller can overlap its start-up with other work: `xone run` starts
 * it before loading the rest of the node (RPC, tx pool, EVM for eth_call), and the worker opens the store (migrations,
 * genesis) on the second core meanwhile (docs/decisions/0022-bundled-cli.md). XoneNode.start uses the same function
 * when given none, so both paths build the chain thread from the options alike.
 */
import { defaultRecoveryWorkers } from '../runtime/recovery/options.ts';
import { ChainThread } from '../chainService/chainThread.ts';
import type { NodeOptions, StartedChain } from './options.ts';
import { diskFullFileForTest } from './testHooks.ts';

/** The options' group-commit batch: 0 for a producer, 128 for a follower, unless set. */
export const chainBatch = (options: Pick<NodeOptions, 'batch' | 'mine'>): number => options.batch ?? (options.mine ? 0 : 128);

/** Spawns the chain thread for `options` and starts opening the store. */
export function startChainThread(
  options: Pick<NodeOptions, 'datadir' | 'genesis' | 'batch' | 'mine' | 'signerKey' | 'peers' | 'recoveryWorkers' | 'dev'>,
): StartedChain {
  const diskFullWhile = diskFullFileForTest();
  // A producer gets its senders from the tx pool and starts no recovery threads.
  const recoveryWorkers = options.peers?.length ? (options.recoveryWorkers ?? defaultRecoveryWorkers()) : 0;
  const thread = new ChainThread({
    datadir: options.datadir,
    genesis: options.genesis,
    batch: chainBatch(options),
    recoveryWorkers,
    // A producer's blocks are small: reading process CPU for their split would cost more than sealing them.
    ...(options.mine ? { cpuSplit: false } : {}),
    // The dev chain keeps anvil's pace: its commits survive the process, not a power loss (decision 0036).
    ...(options.dev ? { commitSurvives: 'process-exit' as const } : {}),
    ...(options.signerKey ? { signerKey: options.signerKey } : {}),
    ...(diskFullWhile ? { diskFullWhile } : {}),
  });
  const ready = thread.init();
  // Awaited later by the caller; until then a failure must not count as an unhandled rejection.
  ready.catch(() => undefined);
  return { thread, ready };
}
