/**
 * Process CPU milliseconds for the import and produce splits. `process.cpuUsage()` is getrusage(RUSAGE_SELF), which
 * sums every thread of the process: ~40 µs a call beside the node's dozen threads, and a producer's one-transaction
 * block read it 15 times (over 1 ms of its ~5 ms). The node's producer uses `noCpuClock` (its splits read 0 CPU);
 * benchmarks and follower import, whose blocks are large, keep `processCpuMs`.
 */
export type CpuClock = () => number;

/** User + system CPU of the whole process, in milliseconds. */
export const processCpuMs: CpuClock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A clock that is not read: every CPU split it measures is 0. */
export const noCpuClock: CpuClock = () => 0;
