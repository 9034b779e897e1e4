/**
 * Keeps a worker thread's V8 heap near its live data (issue #18: follower RSS). V8 lets a busy isolate's old generation
 * grow to a multiple of what is live before it collects (the chain thread reached 272 MB of heap over ~70 MB live
 * during a batch, and kept the pages once idle). The guard asks for an asynchronous major GC (V8 marks concurrently,
 * the thread keeps running) when the heap passes a soft limit, again only after it has grown by half since, and once
 * when the thread has been idle for a while, so an idle follower gives its import-time pages back.
 *
 * It needs `gc` in the thread: `exposeGcToNewThreads()` before the thread is spawned. Without it the guard does nothing.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** Makes `gc()` available in worker threads spawned from now on (V8's --expose-gc, read when a context is created). */
export function exposeGcToNewThreads(): void {
  setFlagsFromString('--expose-gc');
}

type GcFn = (options?: { type?: 'major' | 'minor'; execution?: 'async' | 'sync' }) => void;

export interface HeapGuardOptions {
  /** Heap used (bytes) past which a GC is requested. */
  softLimitBytes: number;
  /** A GC once the thread has done no work for this long (ms). */
  idleMs: number;
}

export interface HeapGuard {
  /** Call after each unit of work (a block imported): checks the heap, re-arms the idle timer. */
  afterWork(): void;
  /** GCs requested so far. */
  readonly requested: number;
  stop(): void;
}

/** A guard for the calling thread (a no-op without `gc`). */
export function startHeapGuard({ softLimitBytes, idleMs }: HeapGuardOptions): HeapGuard {
  const gc = (globalThis as { gc?: GcFn }).gc;
  let requested = 0;
  let nextAt = softLimitBytes;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const collect = (): void => {
    requested++;
    gc?.({ type: 'major', execution: 'async' });
  };
  const onIdle = (): void => {
    idle = undefined;
    collect();
    nextAt = softLimitBytes;
  };
  return {
    afterWork() {
      if (gc === undefined) return;
      const used = getHeapStatistics().used_heap_size;
      if (used > nextAt) {
        collect();
        // What survives shows at the next checks; until the heap has grown by half again, let V8 manage.
        nextAt = Math.max(softLimitBytes, used * 1.5);
      } else if (used < softLimitBytes) nextAt = softLimitBytes;
      if (idle !== undefined) clearTimeout(idle);
      idle = setTimeout(onIdle, idleMs);
      idle.unref();
    },
    get requested() {
      return requested;
    },
    stop() {
      if (idle !== undefined) clearTimeout(idle);
    },
  };
}
