/**
 * The bare cost of one hop to a worker thread and back, measured in the bench's own process: `count` empty messages
 * sent one at a time to an echoing worker (after a warm-up), each after 1 ms of idling, so both threads have gone to
 * sleep and are woken, as for a cheap call from one sequential client. A pooled call from such a client pays this on
 * top of the in-loop path (`--only throughput` prints it beside the one-client latencies: does the hop explain the
 * gap?). Back to back, with neither thread asleep, the hop took 22 us p50 at load 23; after 1 ms idle, 93 us.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { spread } from './client.ts';

const ECHO = `require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));`;

export async function threadHop(count = 500, warmUp = 50): Promise<ReturnType<typeof spread>> {
  const worker = new Worker(ECHO, { eval: true });
  try {
    const ms: number[] = [];
    const once = (i: number): Promise<void> =>
      new Promise((resolve) => {
        const t0 = performance.now();
        worker.once('message', () => {
          if (i >= warmUp) ms.push(performance.now() - t0);
          resolve();
        });
        worker.postMessage({ id: i });
      });
    for (let i = 0; i < warmUp + count; i++) {
      await sleep(1);
      await once(i);
    }
    return spread(ms);
  } finally {
    await worker.terminate();
  }
}
