/**
 * Builds the sender recovery a node asked for: `workers: 0` recovers in the calling thread (no threads at all),
 * anything else starts a pool and waits for its warm-up. Either way the caller holds a `SenderRecovery`.
 */
import { InThreadSenderRecovery } from './inThread.ts';
import { RecoveryPool, type RecoveryPoolDeps } from './pool.ts';
import { defaultRecoveryWorkers, type RecoveryPoolOptions } from './options.ts';
import type { SenderRecovery } from './types.ts';
import { chooseSecp256k1 } from '../../primitives/secp256k1/index.ts';

/** Starts sender recovery with `options.workers` threads (default `defaultRecoveryWorkers()`, 0 = in-thread). */
export async function createSenderRecovery(options: RecoveryPoolOptions = {}, deps: RecoveryPoolDeps = {}): Promise<SenderRecovery> {
  const workers = options.workers ?? defaultRecoveryWorkers();
  if (workers === 0) return new InThreadSenderRecovery(chooseSecp256k1(options.backend), deps.metrics);
  const pool = new RecoveryPool({ ...options, workers }, deps);
  await pool.init();
  return pool;
}
