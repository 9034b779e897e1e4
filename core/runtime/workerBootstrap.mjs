// Entry of every worker thread started by spawnTsWorker (core/runtime/spawnTsWorker.ts).
// Node 20 workers cannot load .ts files through execArgv (`--import tsx` gives ERR_UNKNOWN_FILE_EXTENSION), so this
// plain .mjs file registers tsx's ESM loader inside the worker and then imports the real entry named in workerData.
// A .js/.mjs entry (a build output) is imported without the loader.
import { workerData } from 'node:worker_threads';

const { entry } = workerData ?? {};
if (typeof entry !== 'string') throw new Error('workerBootstrap: workerData.entry (a file URL) is required');
if (entry.endsWith('.ts') || entry.endsWith('.mts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(entry);
