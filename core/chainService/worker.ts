/**
 * Entry of the chain thread: opens the ChainService (the datadir's only writer) and runs requests one at a time, in
 * arrival order, so production, import and unwinding never interleave. With `recoveryWorkers` > 0 (a follower) it
 * also owns the sender recovery pool (docs/decisions/0014), started and warmed up before `ready`, closed after the
 * store. Posts `ready` once the store is open.
 */
import { parentPort } from 'node:worker_threads';
import { XoneError } from '../errors.ts';
import { createSenderRecovery, type SenderRecovery } from '../runtime/recovery/index.ts';
import { startHeapDiag } from '../runtime/heapDiag.ts';
import { startHeapGuard } from '../runtime/heapGuard.ts';
import { trimMallocArenas } from '../runtime/mallocTrim.ts';
import { lowerThreadPriority } from '../runtime/threadPriority.ts';
import { tsWorkerData } from '../runtime/spawnTsWorker.ts';
import { ChainService, type HeadUpdate } from './chainService.ts';
import { packUpdates } from './packedUpdates.ts';
import type { ChainReply, ChainRequest, ChainWorkerData } from './types.ts';

const port = parentPort;
if (!port) throw new Error('chain worker: no parent port');
startHeapDiag('chain');
/**
 * The chain thread's heap beyond its bounded caches is one block's working set and the open batch: past this, a GC is
 * asked for (heapGuard.ts), and once after 2 s without work so an idle follower gives back its import-time heap, its
 * read caches and its decoded trie included (the next block reads its rows and nodes again; issue #18).
 */
const CHAIN_HEAP_SOFT_LIMIT = 96 << 20;
/**
 * A follower's recovery workers stop after this long without a big batch (each is an isolate and a malloc arena,
 * ~10 MB): a follower at the head of a busy chain gets one every block period (2 s here), and one that idles gives
 * them back within seconds. A restart costs each worker its load and one warm-up signature, while the first chunks
 * are recovered in this thread.
 */
const RECOVERY_IDLE_STOP_MS = 5_000;
let service: ChainService | undefined;
const onIdle = (): void => {
  service?.releaseCaches();
  port.postMessage({ type: 'idle' }); // the main thread settles its heap too (collectThisThreadSoon)
};
// After the idle GCs, the free pages of every thread's malloc arena go back too (mallocTrim.ts): this thread is idle
// then, and the RPC thread must not walk the arenas.
const guard = startHeapGuard({ softLimitBytes: CHAIN_HEAP_SOFT_LIMIT, idleMs: 2_000, onIdle, afterIdleGc: trimMallocArenas });

let recovery: SenderRecovery | undefined;
try {
  const data = tsWorkerData<ChainWorkerData>();
  // A follower's import yields the core to the main thread's RPC (threadPriority.ts); a producer's chain thread keeps
  // its priority: eth_sendRawTransaction on an automining node waits for it.
  if (data.batch > 0) lowerThreadPriority();
  service = ChainService.open(data);
  service.afterBlock = guard.afterWork;
  if (data.recoveryWorkers)
    service.senderRecovery = recovery = await createSenderRecovery({
      workers: data.recoveryWorkers,
      onDemand: true,
      idleStopMs: RECOVERY_IDLE_STOP_MS,
      keepAfterInit: data.batch > 0, // a follower's first import comes right after it starts
    });
  port.postMessage({ type: 'ready' });
} catch (err) {
  // The code travels with the message: the node's start fails with it, in one line (waitForReady).
  const code = (err as { code?: unknown }).code;
  port.postMessage({ type: 'ready', error: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) });
  throw err;
}

let queue: Promise<void> = Promise.resolve();
port.on('message', (msg: ChainRequest | { type: 'close' }) => {
  if ('type' in msg) {
    queue = queue.then(async () => {
      service.close();
      await recovery?.close();
      port.postMessage({ type: 'closed' });
    });
    return;
  }
  queue = queue.then(async () => {
    let reply: ChainReply;
    guard.setBusy(true);
    try {
      const fn = service[msg.method] as (...args: unknown[]) => unknown;
      const value = await fn.apply(service, msg.args);
      // A follower batch's tx hashes travel packed (packedUpdates.ts): one buffer per block, not one per hash.
      reply = { id: msg.id, ok: true, value: msg.method === 'importBlocks' ? packUpdates(value as HeadUpdate[]) : value };
    } catch (err) {
      const e = err as Error;
      reply = {
        id: msg.id,
        ok: false,
        error:
          err instanceof XoneError
            ? { name: e.name, code: err.code, message: e.message, meta: err.meta as Record<string, unknown> }
            : { name: e.name, message: e.message },
      };
    }
    guard.setBusy(false);
    port.postMessage(reply);
    guard.afterWork();
  });
});
