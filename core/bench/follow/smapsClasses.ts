/**
 * Where a process's resident bytes are, by kind of mapping, from /proc/PID/smaps (issue #18: follower RSS). Classes:
 * file-backed text and data (the node binary, shared libraries, native addons), glibc's main arena (`[heap]`), the
 * threads' malloc arenas (anonymous mappings on a 64 MiB boundary: glibc's HEAP_MAX for 64-bit), thread stacks, and
 * the other anonymous mappings: V8's heap pages and code space, and large malloc'd blocks (ArrayBuffer stores and
 * SQLite buffers over glibc's mmap threshold). Linux only; empty elsewhere.
 */
import { readFileSync } from 'node:fs';

/** RSS of each class of mapping, MB, and the largest file-backed mappings by name. */
export interface SmapsClasses {
  fileMb: number;
  mainArenaMb: number;
  threadArenasMb: number;
  threadArenas: number;
  stacksMb: number;
  otherAnonMb: number;
  largestFiles: { name: string; mb: number }[];
}

const ARENA_ALIGN = 64n * 1024n * 1024n;
const mb = (kb: number): number => Math.round(kb / 102.4) / 10;

/** Classifies `pid`'s mappings (undefined when the process is gone). */
export function smapsClasses(pid: number): SmapsClasses | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = { file: 0, mainArena: 0, threadArenas: 0, stacks: 0, otherAnon: 0 };
  const files = new Map<string, number>();
  let arenas = 0;
  let kind: keyof typeof kb = 'otherAnon';
  let name = '';
  // An arena is one 64 MiB-aligned reservation split into a read-write head and a PROT_NONE tail: both count once.
  let arenaEnd = -1n;
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const start = BigInt('0x' + header[1]);
      name = header[5] ?? '';
      if (name.startsWith('/')) kind = 'file';
      else if (name === '[heap]') kind = 'mainArena';
      else if (name.startsWith('[stack')) kind = 'stacks';
      else if (name === '' && start % ARENA_ALIGN === 0n) {
        kind = 'threadArenas';
        arenas++;
        arenaEnd = start + ARENA_ALIGN;
      } else if (name === '' && start < arenaEnd) kind = 'threadArenas';
      else kind = 'otherAnon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const k = Number(rss[1]);
    // A thread's stack is an anonymous mapping too; glibc puts a guard page below it, which V8 pages have not either:
    // stacks stay in otherAnon (a few MB: 8 MiB reserved per thread, little of it touched).
    kb[kind] += k;
    if (kind === 'file') files.set(name, (files.get(name) ?? 0) + k);
  }
  return {
    fileMb: mb(kb.file),
    mainArenaMb: mb(kb.mainArena),
    threadArenasMb: mb(kb.threadArenas),
    threadArenas: arenas,
    stacksMb: mb(kb.stacks),
    otherAnonMb: mb(kb.otherAnon),
    largestFiles: [...files]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([n, k]) => ({ name: n.split('/').slice(-2).join('/'), mb: mb(k) })),
  };
}
