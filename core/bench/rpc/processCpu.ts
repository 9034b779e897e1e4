/**
 * CPU time of a peer's processes from /proc (user + system, all threads), so the throughput phase can report CPU per
 * request next to requests per second. On a shared 2-core host req/s mostly says how much CPU the scheduler handed
 * each peer (anvil runs several threads, our node serves HTTP on one); CPU per request says what a request costs.
 * Linux only; elsewhere it reports nothing.
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture that matters here

/** utime + stime of one process in milliseconds, or 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Process ids in process group `pgid` (a detached child and everything it started). */
export function processGroup(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) out.push(Number(e));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Total CPU milliseconds of `pids` now. */
export function cpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
}
