import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (ms, user + system) a process has used so far, from /proc/<pid>/stat. The benchmark reports CPU per
 * request from the difference across a scenario: on a host shared with other engineers' work, CPU cost per request
 * is stable where req/s and latency move with everyone else's load.
 */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 counted from the state field.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}
