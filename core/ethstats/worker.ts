/**
 * Entry of the ethstats reporter's worker thread: its own event loop, so block import on the main and chain threads
 * never delays a heartbeat reply. Values arrive by postMessage; history requests go back to the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { tsWorkerData } from '../runtime/spawnTsWorker.ts';
import { EthstatsClient } from './client.ts';
import type { EthstatsOptions } from './options.ts';
import type { EthstatsBlock, EthstatsNodeInfo, FromReporter, ToReporter } from './types.ts';
import type { EthstatsTarget } from './url.ts';

/** What the main thread hands the worker. */
export interface ReporterWorkerData {
  target: EthstatsTarget;
  info: EthstatsNodeInfo;
  options: EthstatsOptions;
}

const port = parentPort;
if (!port) throw new Error('core/ethstats/worker.ts must run in a worker thread');
const post = (msg: FromReporter) => port.postMessage(msg);
const { target, info, options } = tsWorkerData<ReporterWorkerData>();

let nextRequest = 1;
const waiting = new Map<number, (blocks: EthstatsBlock[]) => void>();

const client = new EthstatsClient(target, info, options, {
  history: (numbers) =>
    new Promise((resolve) => {
      const requestId = nextRequest++;
      waiting.set(requestId, resolve);
      // The client races this against its own timeout; drop the entry then too, so the map stays bounded.
      setTimeout(() => waiting.delete(requestId), options.historyTimeoutMs * 2).unref();
      post({ type: 'history-request', requestId, numbers });
    }),
  onState: (state, detail) => post({ type: 'state', state, ...(detail === undefined ? {} : { detail }) }),
  log: (level, msg, meta) => post({ type: 'log', level, msg, ...(meta === undefined ? {} : { meta }) }),
});

port.on('message', (msg: ToReporter) => {
  switch (msg.type) {
    case 'head':
      return client.newHead(msg.block);
    case 'pending':
      return client.setPending(msg.count);
    case 'stats':
      return client.setStats(msg.stats);
    case 'history-response': {
      const resolve = waiting.get(msg.requestId);
      waiting.delete(msg.requestId);
      return resolve?.(msg.blocks);
    }
    case 'close':
      void client.close(1001).then(() => {
        post({ type: 'closed' });
        port.close();
      });
      return;
  }
});

client.start();
post({ type: 'ready' });
