/**
 * Memory diagnostics for bench:follow (issue #5 RSS target): with `XONE_HEAP_DIAG=<ms>` set, the calling thread
 * writes one JSON line every `ms` milliseconds with its V8 heap and off-heap figures in MB (and the process's RssAnon,
 * RssFile, RssShmem), so each thread's share of the process RSS can be told apart. The lines go to stderr, or are
 * appended to the file named by `XONE_HEAP_DIAG_FILE`. Off (and free) unless the variable is set. A thread busy in
 * synchronous work (the chain thread inside a batch) reports only between its steps.
 */
import { appendFileSync, readFileSync, readlinkSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';

const mb = (n: number): number => Math.round(n / 1e5) / 10;

/** One report of the calling thread (`heapDiag` = its name). */
function heapDiagLine(name: string): Record<string, string | number> {
  const h = getHeapStatistics();
  const m = process.memoryUsage();
  return {
    heapDiag: name,
    pid: process.pid,
    threadId,
    ...osThreadId(),
    used: mb(h.used_heap_size),
    total: mb(h.total_heap_size),
    limit: mb(h.heap_size_limit),
    external: mb(h.external_memory),
    arrayBuffers: mb(m.arrayBuffers),
    rss: mb(m.rss),
    ...procRss(),
    // Committed MB per V8 space (new_space is the young generation: its size is set per isolate, not by live data).
    ...Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)])),
  };
}

/** Starts the periodic report for the thread named `name` when XONE_HEAP_DIAG is set; returns its stop function. */
export function startHeapDiag(name: string, env: NodeJS.ProcessEnv = process.env): () => void {
  const ms = Number(env.XONE_HEAP_DIAG);
  if (!Number.isFinite(ms) || ms <= 0) return () => {};
  const file = env.XONE_HEAP_DIAG_FILE;
  const timer = setInterval(() => {
    const line = JSON.stringify(heapDiagLine(name)) + '\n';
    if (file) appendFileSync(file, line);
    else process.stderr.write(line);
  }, ms);
  timer.unref(); // diagnostics never keep a thread alive
  return () => clearInterval(timer);
}

/**
 * The calling thread's kernel id (Linux: `/proc/thread-self` links to `PID/task/TID`), so bench:follow can match this
 * thread's lines to its CPU in /proc/PID/task/TID/schedstat; every thread of a Node process is called `node`.
 */
function osThreadId(): { tid?: number } {
  try {
    return { tid: Number(readlinkSync('/proc/thread-self').split('/').pop()) };
  } catch {
    return {};
  }
}

/** RssAnon, RssFile and RssShmem of the process in MB (Linux /proc/self/status; empty elsewhere). */
function procRss(): Record<string, number> {
  try {
    const out: Record<string, number> = {};
    for (const m of readFileSync('/proc/self/status', 'utf8').matchAll(/^(RssAnon|RssFile|RssShmem):\s+(\d+) kB/gm))
      out[m[1]!] = Math.round(Number(m[2]) / 102.4) / 10;
    return out;
  } catch {
    return {};
  }
}
