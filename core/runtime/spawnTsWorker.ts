/**
 * Starts a worker thread whose entry may be a TypeScript file, through `workerBootstrap.mjs` (see TOOLCHAIN.md: Node
 * 20 workers cannot take `--import tsx`). The entry reads its own data with `tsWorkerData()`.
 */
import { Worker, workerData, type WorkerOptions } from 'node:worker_threads';
import { XoneError } from '../errors.ts';

const BOOTSTRAP = new URL('./workerBootstrap.mjs', import.meta.url);

/** What the bootstrap receives: the entry to import and the caller's data. */
interface BootstrapData<T> {
  entry: string;
  data: T;
}

/**
 * Heap limits of the threads that do small, steady work (the recovery workers, the watchdog): V8's default young
 * generation (up to 16 MB per semi-space) is sized for throughput and is most of such a thread's memory (8.4 of 16.5
 * MB committed in a recovery worker during a follower batch). 4 MB keeps scavenges cheap for their few live objects.
 */
export const SMALL_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** Options passed through to `new Worker` (except `workerData`, which `spawnTsWorker` owns). */
export type SpawnTsWorkerOptions = Omit<WorkerOptions, 'workerData' | 'eval'>;

/**
 * Starts `entryUrl` (a file URL to a .ts or .js module) in a new worker thread with `data` as its workerData.
 * `data` is structured-cloned; put ArrayBuffers in `options.transferList` to move them instead, and pass a
 * SharedArrayBuffer to share memory.
 */
export function spawnTsWorker<T>(entryUrl: URL, data: T, options: SpawnTsWorkerOptions = {}): Worker {
  const payload: BootstrapData<T> = { entry: entryUrl.href, data };
  return new Worker(BOOTSTRAP, { ...options, workerData: payload });
}

/** Inside a worker started by `spawnTsWorker`: the data the main thread passed. */
export function tsWorkerData<T>(): T {
  return (workerData as BootstrapData<T>).data;
}

/**
 * Resolves when the worker posts its first message of type `ready` (entries post `{ type: 'ready' }` once they have
 * warmed up), rejects on an error, an early exit, or after `timeoutMs`.
 */
export function waitForReady(worker: Worker, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (msg: unknown): void => {
      if (msg !== null && typeof msg === 'object' && (msg as { type?: unknown }).type === 'ready') {
        const { error, code } = msg as { error?: unknown; code?: unknown };
        if (typeof error !== 'string') return done();
        // The worker reported its failure here and may rethrow it to end: that 'error' event is the same failure,
        // already on its way to the caller (one clear line, not an uncaught worker stack).
        worker.on('error', () => undefined);
        done(typeof code === 'string' ? new XoneError(code, error) : new Error(error));
      }
    };
    const onError = (err: Error): void => done(err);
    const startedAt = performance.now();
    // No 'error' came first, so nothing was thrown in the thread: its code (or a module loader it runs) called
    // process.exit, or it was stopped from outside.
    const onExit = (code: number): void =>
      done(
        new Error(
          `worker exited with code ${code} before it was ready, ${Math.round(performance.now() - startedAt)} ms after it was started, ` +
            'without an error (process.exit in the thread, or stopped from outside)',
        ),
      );
    const timer = setTimeout(() => done(new Error(`worker not ready after ${timeoutMs} ms`)), timeoutMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
