import { readFile } from 'node:fs/promises';
import { MeasureNodeError } from '../errors.ts';
import type { ProcessIo, ProcessMemory, ProcessSnapshot } from '../types.ts';

/**
 * Reads memory (/proc/PID/status, /proc/PID/smaps_rollup) and I/O counters (/proc/PID/io) of a process. Status is
 * required; smaps_rollup and io are recorded as null when the kernel or permissions do not allow them.
 */
export async function readProcessSnapshot(pid: number, procRoot = '/proc'): Promise<ProcessSnapshot> {
  let status: string;
  try {
    status = await readFile(`${procRoot}/${pid}/status`, 'utf8');
  } catch (err) {
    throw new MeasureNodeError('PROC_UNREADABLE', `cannot read ${procRoot}/${pid}/status: ${(err as Error).message}`, { pid });
  }
  const rollup = await readFile(`${procRoot}/${pid}/smaps_rollup`, 'utf8').catch(() => null);
  const io = await readFile(`${procRoot}/${pid}/io`, 'utf8').catch(() => null);
  return { pid, memory: parseMemory(status, rollup), io: io === null ? null : parseIo(io) };
}

/** Parses the kB fields of status and smaps_rollup into bytes. Exported for tests. */
export function parseMemory(status: string, rollup: string | null): ProcessMemory {
  const s = kbFields(status);
  const r = rollup === null ? null : kbFields(rollup);
  return {
    rssBytes: s.get('VmRSS') ?? 0,
    rssAnonBytes: s.get('RssAnon') ?? 0,
    rssFileBytes: s.get('RssFile') ?? 0,
    rssShmemBytes: s.get('RssShmem') ?? 0,
    vmHwmBytes: s.get('VmHWM') ?? 0,
    pssBytes: r?.get('Pss') ?? null,
    swapBytes: r?.get('Swap') ?? null,
  };
}

/** Parses /proc/PID/io (plain byte counters). Exported for tests. */
export function parseIo(text: string): ProcessIo {
  const f = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) f.set(m[1], Number(m[2]));
  }
  return {
    rchar: f.get('rchar') ?? 0,
    wchar: f.get('wchar') ?? 0,
    readBytes: f.get('read_bytes') ?? 0,
    writeBytes: f.get('write_bytes') ?? 0,
    cancelledWriteBytes: f.get('cancelled_write_bytes') ?? 0,
  };
}

function kbFields(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)\s*kB/.exec(line);
    if (m) out.set(m[1], Number(m[2]) * 1024);
  }
  return out;
}

/** Counter differences over the window (after minus before). */
export function ioDelta(before: ProcessIo, after: ProcessIo): ProcessIo {
  return {
    rchar: after.rchar - before.rchar,
    wchar: after.wchar - before.wchar,
    readBytes: after.readBytes - before.readBytes,
    writeBytes: after.writeBytes - before.writeBytes,
    cancelledWriteBytes: after.cancelledWriteBytes - before.cancelledWriteBytes,
  };
}
