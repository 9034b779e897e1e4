/**
 * Keeps a worker thread's V8 heap near its live data (issue #18: follower RSS). V8 lets a busy isolate's old generation
 * grow to a multiple of what is live before it collects (the chain thread reached 272 MB of heap over ~70 MB live
 * during a batch, and kept the pages once idle). The guard asks for an asynchronous major GC (V8 marks concurrently,
 * the thread keeps running) when the heap passes a soft limit, again only after it has grown by half since, and once
 * when the thread has been idle for a while, so an idle follower gives its import-time pages back. The idle GC also
 * compacts: a major GC frees a batch's dead objects but keeps nearly every page it filled, because the survivors are
 * spread over them (the chain thread after a batch: 128 MB committed for 46 MB live); moving them together gives the
 * pages back (a synthetic heap of 1.5 M objects with every tenth kept: 481 MB committed after a plain major GC, 82 MB
 * after a compacting one).
 *
 * It needs `gc` in the thread: `exposeGcToNewThreads()` before the thread is spawned. Without it the guard does nothing.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Makes `gc()` available in worker threads spawned from now on (V8's --expose-gc, read when a context is created). */
export function exposeGcToNewThreads(): void {
  setFlagsFromString('--expose-gc');
}

/**
 * How long full GCs compact after an idle GC is asked for (V8's --compact-on-every-full-gc). The flag is process-wide,
 * so a full GC of another thread in that window compacts too (costs it CPU, frees its pages as well); V8 picks the
 * pages to evacuate as the GC starts, well within the window (50 ms was enough in the synthetic check).
 */
const COMPACT_WINDOW_MS = 1_000;
let compactTimer: ReturnType<typeof setTimeout> | undefined;

/** Makes full GCs compact for the next COMPACT_WINDOW_MS. */
function compactFullGcsForAWhile(): void {
  if (compactTimer === undefined) setFlagsFromString('--compact-on-every-full-gc');
  else clearTimeout(compactTimer);
  compactTimer = setTimeout(() => {
    compactTimer = undefined;
    setFlagsFromString('--no-compact-on-every-full-gc');
  }, COMPACT_WINDOW_MS);
  compactTimer.unref();
}

/**
 * V8 shrinks a young generation it grew for an import only at a major GC that finds the allocation rate low but not
 * zero, and it measures that rate over the last 5 s from the samples its GCs take: a GC sooner after the work, or one
 * with no GC since the work, keeps the semi-spaces (16.8 MB committed in the chain and main threads after a follower's
 * import, issue #18). So an idle GC is followed, this long after, by a minor GC (a fresh sample) and 0.5 s later a
 * compacting major one (synthetic heap, `node --expose-gc`: 33.6 -> 2.1-3.7 MB of new space in 3 of 3 runs this way;
 * with the major GC alone, 2 of 3; at 2 s, 0 of 3).
 */
export const YOUNG_GENERATION_SETTLE_MS = 6_000;
const SAMPLE_BEFORE_MAJOR_MS = 500;

function settleYoungGeneration(gc: GcFn): void {
  gc({ type: 'minor' });
  setTimeout(() => {
    compactFullGcsForAWhile();
    gc({ type: 'major', execution: 'async' });
  }, SAMPLE_BEFORE_MAJOR_MS).unref();
}

let threadGc: GcFn | null | undefined;
let settleTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * For a thread whose own work tells it nothing of idleness (the main thread, told by the chain thread's idle GC): the
 * settling GCs above, YOUNG_GENERATION_SETTLE_MS from now, unless they are already due. Without them the main thread
 * of an idle follower kept the young generation an import had grown. `gc` comes from a fresh context once
 * `--expose-gc` is set (the flag is read when a context is created; this thread's own started without).
 */
export function collectThisThreadSoon(): void {
  if (settleTimer !== undefined) return;
  settleTimer = setTimeout(() => {
    settleTimer = undefined;
    if (threadGc === undefined) {
      exposeGcToNewThreads();
      threadGc = (globalThis as { gc?: GcFn }).gc ?? (runInNewContext('typeof gc === "function" ? gc : null') as GcFn | null);
    }
    if (threadGc !== null) settleYoungGeneration(threadGc);
  }, YOUNG_GENERATION_SETTLE_MS);
  settleTimer.unref();
}

/** Calls of `afterWork` closer than this are one unit of work (see afterWork). */
const BURST_MIN_GAP_MS = 50;

type GcFn = (options?: { type?: 'major' | 'minor'; execution?: 'async' | 'sync' }) => void;

export interface HeapGuardOptions {
  /** Heap used (bytes) past which a GC is requested. */
  softLimitBytes: number;
  /** A GC once the thread has done no work for this long (ms). */
  idleMs: number;
  /**
   * Runs just before each idle GC: what the thread can drop once idle (caches), for that GC to free. A follower at the
   * head of a chain with a 2 s period gets it every other block or so (the GC's cadence, see afterWork).
   */
  onIdle?: () => void;
  /**
   * Runs AFTER_IDLE_GC_MS after each idle GC and after the settling GCs that follow it, once V8 has swept what they
   * freed (ArrayBuffer stores go back to malloc then): what gives memory outside V8 back (malloc_trim).
   */
  afterIdleGc?: () => void;
}

/** Time from an idle GC's request to `afterIdleGc`: V8 runs the GC in a later task and frees ArrayBuffers after it. */
export const AFTER_IDLE_GC_MS = 1_000;

export interface HeapGuard {
  /** Call after each unit of work (a block imported): checks the heap, re-arms the idle timer. */
  afterWork(): void;
  /**
   * Marks a request in progress (`true`) or done (`false`). The idle GC never runs while one is: a request that waits
   * between its steps (a batch awaiting sender recovery) gives timers their turn, and a compacting GC there pauses
   * the import it is part of (on a loaded host a block can take longer than `idleMs / 2`, which ends the burst).
   */
  setBusy(busy: boolean): void;
  /** Idle GCs put off because a request was in progress. */
  readonly deferred: number;
  /** GCs requested so far. */
  readonly requested: number;
  stop(): void;
}

/** A guard for the calling thread (a no-op without `gc`). */
export function startHeapGuard({ softLimitBytes, idleMs, onIdle: release, afterIdleGc }: HeapGuardOptions): HeapGuard {
  const gc = (globalThis as { gc?: GcFn }).gc;
  let requested = 0;
  let nextAt = softLimitBytes;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let settle: ReturnType<typeof setTimeout> | undefined;
  let lastWork = -Infinity;
  let busy = false;
  let deferred = 0;
  let after: ReturnType<typeof setTimeout> | undefined;
  /** afterIdleGc, `ms` from now, unless the thread is busy by then (the next idle GC brings it again). */
  const afterGc = (ms: number): void => {
    if (afterIdleGc === undefined) return;
    if (after !== undefined) clearTimeout(after);
    after = setTimeout(() => {
      after = undefined;
      if (!busy) afterIdleGc();
    }, ms);
    after.unref();
  };
  const collect = (compact: boolean): void => {
    requested++;
    if (compact) compactFullGcsForAWhile();
    gc?.({ type: 'major', execution: 'async' });
  };
  const onIdle = (): void => {
    if (busy) {
      deferred++;
      idle = setTimeout(onIdle, idleMs);
      idle.unref();
      return;
    }
    idle = undefined;
    release?.();
    collect(true);
    afterGc(AFTER_IDLE_GC_MS);
    nextAt = softLimitBytes;
    if (settle !== undefined) clearTimeout(settle);
    settle = setTimeout(() => {
      settle = undefined;
      if (busy || gc === undefined) return;
      requested++;
      settleYoungGeneration(gc);
      afterGc(SAMPLE_BEFORE_MAJOR_MS + AFTER_IDLE_GC_MS);
    }, YOUNG_GENERATION_SETTLE_MS);
    settle.unref();
  };
  return {
    afterWork() {
      if (gc === undefined) return;
      const used = getHeapStatistics().used_heap_size;
      if (used > nextAt) {
        collect(false);
        // What survives shows at the next checks; until the heap has grown by half again, let V8 manage.
        nextAt = Math.max(softLimitBytes, used * 1.5);
      } else if (used < softLimitBytes) nextAt = softLimitBytes;
      // Only a burst (work less than idleMs / 2 apart: a batch) moves the idle GC back. A follower at the head imports
      // one small block per period (2 s in bench:follow, as long as idleMs): when every block re-armed the timer, the
      // GC after a batch never came. Calls under BURST_MIN_GAP_MS apart are one unit of work (the chain thread reports
      // each block and then the request that carried it), not a burst.
      const now = performance.now();
      const gap = now - lastWork;
      const burst = gap >= BURST_MIN_GAP_MS && gap < idleMs / 2;
      lastWork = now;
      if (burst && settle !== undefined) {
        clearTimeout(settle); // a batch again: its GCs come by the soft limit, then the next idle GC
        settle = undefined;
      }
      if (idle !== undefined && !burst) return;
      if (idle !== undefined) clearTimeout(idle);
      idle = setTimeout(onIdle, idleMs);
      idle.unref();
    },
    setBusy(value: boolean) {
      busy = value;
    },
    get requested() {
      return requested;
    },
    get deferred() {
      return deferred;
    },
    stop() {
      if (after !== undefined) clearTimeout(after);
      if (idle !== undefined) clearTimeout(idle);
      if (settle !== undefined) clearTimeout(settle);
    },
  };
}
