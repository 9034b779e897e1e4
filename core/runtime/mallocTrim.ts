/**
 * Gives the C allocator's free pages back to the system (glibc's `malloc_trim(0)`, issue #18: follower RSS). ArrayBuffer
 * stores, SQLite's page caches and statement journals live in glibc's malloc arenas (one per thread that allocates).
 * glibc returns memory only from the top of an arena; what a batch freed in the middle stays resident, so an idle
 * follower kept 60-75 MB of free arena pages after its import (smaps, 2026-12-02). `malloc_trim` walks every arena
 * and releases each free page in it (madvise), whichever thread calls it; the next allocation there faults a zeroed
 * page back in. Node has no binding for it, so it is called through koffi (an FFI with its binaries in the package).
 * Elsewhere (not glibc, or koffi not loadable) it does nothing.
 */
import { createRequire } from 'node:module';

interface Koffi {
  load(path: string): { func(signature: string): (pad: number) => number };
}

let trim: ((pad: number) => number) | null | undefined;

/** glibc's own name for itself in the process report (absent on musl, macOS, Windows). */
function runsOnGlibc(): boolean {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === 'string';
}

function loadTrim(): ((pad: number) => number) | null {
  if (process.platform !== 'linux' || !runsOnGlibc()) return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
  } catch {
    return null;
  }
}

/**
 * Releases the free pages of every malloc arena of the process; false where that is not available. Walks each arena
 * under its lock (tens of ms for ~100 MB of small chunks): call it from a thread that is idle, never from the RPC
 * thread.
 */
export function trimMallocArenas(): boolean {
  if (trim === undefined) trim = loadTrim();
  if (trim === null) return false;
  trim(0);
  return true;
}
