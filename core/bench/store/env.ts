/** Where and under what load a benchmark ran: filesystem of the bench path (findmnt -T), load average, device flushes. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** `findmnt -T path` as an object (target, source, fstype, options), or the error text. */
export function findmnt(path: string): Record<string, string> {
  try {
    const out = execFileSync('findmnt', ['-T', path, '-J', '-o', 'TARGET,SOURCE,FSTYPE,OPTIONS'], { encoding: 'utf8' });
    const fs = (JSON.parse(out) as { filesystems: Record<string, string>[] }).filesystems[0];
    return fs;
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** 1/5/15-minute load averages. */
export const loadAverage = (): number[] => loadavg().map((x) => Math.round(x * 100) / 100);

/**
 * Flush requests completed by the block device behind `source` (/proc/diskstats field 19, Linux ≥ 5.5). System-wide:
 * other processes' flushes count too, so it is reported as a cross-check, not used for the per-block figure.
 */
export function deviceFlushes(source: string): number | undefined {
  const dev = source.replace(/^\/dev\//, '');
  try {
    for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f[2] === dev && f.length >= 19) return Number(f[18]);
    }
  } catch {
    // Not Linux.
  }
  return undefined;
}
