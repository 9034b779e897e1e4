/**
 * CPU time of one thread, for the pool's priority rule (decision 0030): a job is long work, and its thread is lowered,
 * once it has used DEMOTE_AFTER_CPU_MS of CPU, not once it has been running that long on the clock. On a busy host
 * a cheap call waits for the CPU far longer than it uses it; lowered by wall time it then crawled at a tenth of a
 * core's share (a pooled eth_call took 22.7 s under `npm run test:loaded`).
 *
 * Linux: the first field of /proc/<pid>/task/<tid>/schedstat is the nanoseconds the thread has run (one small
 * read on the main thread, only for jobs still running after DEMOTE_AFTER_MS of wall time: a cheap call on a quiet
 * host never costs one). Elsewhere there is none and the pool falls back to wall time.
 */
import { readFileSync } from 'node:fs';

/** Nanoseconds the thread `tid` of this process has run, or undefined. */
export function threadCpuNs(tid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1');
    const ns = Number(text.slice(0, text.indexOf(' ')));
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}
