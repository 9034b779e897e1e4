/**
 * CPU per thread of a node process over a window, from /proc/PID/task/TID/schedstat (ns on a CPU) and stat (nice),
 * so bench:follow can say which thread the import's CPU went to (issue #18) without a profiler's overhead. Every
 * thread of a Node process is called `node`; ours are named by the tid each reports in its `XONE_HEAP_DIAG` lines
 * (the main thread's tid is the pid), the rest are V8's platform threads (GC, compiler) and libuv's pool. A thread
 * that ended inside the window is counted in `exitedMs` (the process's own CPU minus the live threads'). Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A thread's counters: ns on a CPU, ns runnable but waiting for one (schedstat's second field), its nice. */
export interface ThreadCounters {
  ns: number;
  waitNs: number;
  nice: number;
}

/** `ThreadCounters` of each live thread of `pid`, by tid. */
export function threadCpuSnapshot(pid: number): Map<number, ThreadCounters> {
  const out = new Map<number, ThreadCounters>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const [ns, waitNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      out.set(Number(tid), { ns: ns!, waitNs: waitNs!, nice });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** One thread's share of the window. */
export interface ThreadCpu {
  tid: number;
  name: string;
  nice: number;
  cpuMs: number;
  /** Time it was runnable but waited for a core (the run queue), ms: on a loaded host, what an RPC call waits for. */
  waitMs: number;
  /** Share of the process's CPU in the window, %. */
  pct: number;
}

/** Per-thread CPU between two snapshots; `names` maps tids to our threads' names (the rest are Node's own). */
export function threadCpuDelta(
  pid: number,
  before: Map<number, ThreadCounters>,
  after: Map<number, ThreadCounters>,
  processCpuMs: number,
  names: ReadonlyMap<number, string>,
): { threads: ThreadCpu[]; nodeInternalMs: number; nodeInternal: { tid: number; cpuMs: number }[]; exitedMs: number } {
  const threads: ThreadCpu[] = [];
  const nodeInternal: { tid: number; cpuMs: number }[] = [];
  let live = 0;
  let internal = 0;
  for (const [tid, a] of after) {
    const ms = (a.ns - (before.get(tid)?.ns ?? 0)) / 1e6;
    live += ms;
    const name = tid === pid ? 'main' : names.get(tid);
    if (name === undefined) {
      internal += ms;
      if (ms >= 1) nodeInternal.push({ tid, cpuMs: Math.round(ms) });
      continue;
    }
    const waitMs = Math.round((a.waitNs - (before.get(tid)?.waitNs ?? 0)) / 1e6);
    threads.push({ tid, name, nice: a.nice, cpuMs: Math.round(ms), waitMs, pct: 0 });
  }
  const total = Math.max(processCpuMs, live);
  for (const t of threads) t.pct = Math.round((t.cpuMs / total) * 1000) / 10;
  threads.sort((x, y) => y.cpuMs - x.cpuMs);
  nodeInternal.sort((x, y) => y.cpuMs - x.cpuMs);
  return { threads, nodeInternalMs: Math.round(internal), nodeInternal, exitedMs: Math.max(0, Math.round(processCpuMs - live)) };
}

/** tid -> thread name from process `pid`'s `XONE_HEAP_DIAG` lines (JSON, one per line, with `heapDiag` and `tid`). */
export function threadNamesFromHeapDiag(text: string, pid: number): Map<number, string> {
  const names = new Map<number, string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const l = JSON.parse(line) as { heapDiag?: string; tid?: number; pid?: number };
      if (l.pid === pid && l.heapDiag && typeof l.tid === 'number') names.set(l.tid, l.heapDiag);
    } catch {
      // A partly written line.
    }
  }
  return names;
}
