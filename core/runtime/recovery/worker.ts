/** Entry of one recovery worker: warm up, say ready, then recover each packed chunk it is sent and move the answer back. */
import { parentPort } from 'node:worker_threads';
import { chooseSecp256k1 } from '../../primitives/secp256k1/index.ts';
import { startHeapDiag } from '../heapDiag.ts';
import { tsWorkerData } from '../spawnTsWorker.ts';
import { lowerThreadPriority } from '../threadPriority.ts';
import { recoverPacked } from './packed.ts';
import type { RecoveryWorkerData, RecoveryRequest, RecoveryResponse } from './protocol.ts';
import { warmUp } from './warmup.ts';

const port = parentPort;
if (!port) throw new Error('recovery worker must run in a worker thread');
startHeapDiag('recovery');
// Recovery runs for the import (a follower's batches, a big tx-pool batch): it yields the core to RPC like the chain
// thread does (threadPriority.ts).
lowerThreadPriority();
const { backend: preference } = tsWorkerData<RecoveryWorkerData>();

try {
  const backend = chooseSecp256k1(preference);
  warmUp(backend);
  port.on('message', (req: RecoveryRequest) => {
    const { addresses, failedIndex, failure } = recoverPacked(req.packed, backend);
    const res: RecoveryResponse = { id: req.id, addresses, failedIndex, failure };
    port.postMessage(res, [addresses]);
  });
  port.postMessage({ type: 'ready', backend: backend.name });
} catch (err) {
  port.postMessage({ type: 'ready', error: (err as Error).message });
}
