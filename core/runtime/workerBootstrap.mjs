// Entry of every worker thread started by spawnTsWorker (core/runtime/spawnTsWorker.ts).
// Node 20 workers cannot load .ts files through execArgv (`--import tsx` gives ERR_UNKNOWN_FILE_EXTENSION), so this
// plain .mjs file registers tsx's ESM loader inside the worker and then imports the real entry named in workerData.
// A .js/.mjs entry (a build output) is imported without the loader.
// `nice` (optional) lowers this thread's CPU priority before anything loads: on Linux the nice value is per thread, so
// the main loop and the chain thread keep theirs (core/rpcPool runs its workers at a lower priority).
import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

const { entry, nice } = workerData ?? {};
if (typeof entry !== 'string') throw new Error('workerBootstrap: workerData.entry (a file URL) is required');
if (typeof nice === 'number' && nice > 0) {
  try {
    setPriority(nice);
  } catch {
    // Not permitted (or not supported) here: the thread keeps the process's priority.
  }
}
if (entry.endsWith('.ts') || entry.endsWith('.mts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(entry);
