/**
 * The main thread's handle on the chain thread (ARCHITECTURE.md: the main loop "never waits behind a step of the
 * chain thread"). Every ChainApi method becomes an async call answered by the worker; errors come back as XoneErrors
 * with their codes. `init()` resolves once the worker has opened the store.
 */
import type { Worker } from 'node:worker_threads';
import { XoneError } from '../errors.ts';
import { startHeapDiag } from '../runtime/heapDiag.ts';
import { collectThisThreadSoon, exposeGcToNewThreads } from '../runtime/heapGuard.ts';
import { spawnTsWorker, waitForReady } from '../runtime/spawnTsWorker.ts';
import type { ChainServiceOptions } from './chainService.ts';
import { unpackUpdates, type PackedHeadUpdate } from './packedUpdates.ts';
import type { ChainApi, ChainMethod, ChainReply, ChainRequest } from './types.ts';

type Async<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never };

export class ChainThread implements Async<ChainApi> {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly options: ChainServiceOptions) {}

  async init(): Promise<void> {
    startHeapDiag('main');
    exposeGcToNewThreads(); // the chain thread's heap guard
    const worker = spawnTsWorker(new URL('./worker.ts', import.meta.url), this.options, {
      name: 'xone-chain',
      // V8's default young generation (16 MB semi-spaces, 33.6 MB committed) is half of an idle chain thread's heap;
      // 8 MB semi-spaces cost ~3% import CPU (BENCHMARKS.md, Follow).
      resourceLimits: { maxYoungGenerationSizeMb: 24 },
    });
    this.worker = worker;
    await waitForReady(worker, 120_000);
    worker.on('message', (msg: ChainReply | { type: string }) => {
      if ('type' in msg) {
        // The chain thread's idle GC: a follower's main thread gives back the young generation an import grew, too
        // (a producer's main thread is the dev chain's RPC: no pause of its loop after every idle period).
        if (msg.type === 'idle' && this.options.batch > 0) collectThisThreadSoon();
        return;
      }
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(new XoneError(msg.error.code ?? 'CHAIN_THREAD_ERROR', msg.error.message, msg.error.meta ?? {}));
    });
    worker.on('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new XoneError('CHAIN_THREAD_EXITED', `chain thread exited with code ${code}`));
      this.pending.clear();
      this.worker = undefined;
    });
  }

  private call<M extends ChainMethod>(method: M, ...args: Parameters<ChainApi[M]>): Promise<Awaited<ReturnType<ChainApi[M]>>> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new XoneError('CHAIN_THREAD_EXITED', 'chain thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const request: ChainRequest = { id, method, args };
      worker.postMessage(request);
    });
  }

  head = () => this.call('head');
  durability = () => this.call('durability');
  canonicalHash = (number: bigint) => this.call('canonicalHash', number);
  hasBlock = (hash: Uint8Array) => this.call('hasBlock', hash);
  sealPlan = () => this.call('sealPlan');
  produce = (request: Parameters<ChainApi['produce']>[0]) => this.call('produce', request);
  importBlocks = async (rlps: Uint8Array[]) => unpackUpdates((await this.call('importBlocks', rlps)) as unknown as PackedHeadUpdate[]);
  steady = () => this.call('steady');
  checkpoint = () => this.call('checkpoint');
  unwindTo = (number: bigint) => this.call('unwindTo', number);
  warmUp = () => this.call('warmUp');

  /** Finishes queued work, closes the store in the chain thread, then ends the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.on('message', (msg: { type?: string }) => {
        if (msg.type === 'closed') resolve();
      });
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' });
    });
    await worker.terminate();
    this.worker = undefined;
  }
}
