import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { summarizeProfile, type CpuProfile } from '../../core/bench/profileSummary.ts';
import { smapsClasses } from '../../core/bench/follow/smapsClasses.ts';
import { threadCpuDelta, threadCpuSnapshot, threadNamesFromHeapDiag } from '../../core/bench/follow/threadCpu.ts';

const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });

describe('profileSummary', () => {
  // root -> work (self 3 samples) and (idle) (1 sample), 1 ms apart: a sample's time runs to the next one.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
      { id: 2, callFrame: frame('work', 'file:///x/chunk-A.mjs', 9) },
      { id: 3, callFrame: frame('(idle)') },
      { id: 4, callFrame: frame('(garbage collector)') },
    ],
    startTime: 1_000_000,
    endTime: 1_006_000,
    samples: [2, 2, 3, 2, 4, 2],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('gives each function its self time as a share of the busy (non-idle) time', () => {
    const s = summarizeProfile(profile, '/d/CPU.1.cpuprofile');
    expect(s.busyMs).toBe(4);
    expect(s.top[0]).toEqual({ fn: 'work', where: 'chunk-A.mjs:10', ms: 3, pct: 75 });
    expect(s.top[1]).toMatchObject({ fn: '(garbage collector)', ms: 1, pct: 25 });
  });

  it('cuts to a monotonic window', () => {
    // Samples at 1,001,000 .. 1,006,000 µs; keep the 3rd to 5th.
    const s = summarizeProfile(profile, 'p', 15, [1_003_000, 1_005_000]);
    expect(s.busyMs).toBe(2);
    expect(s.top.map((e) => e.fn).sort()).toEqual(['(garbage collector)', 'work']);
  });
});

describe('per-thread CPU and mappings from /proc', () => {
  it.runIf(process.platform === 'linux')('names a worker thread by the tid it reports and counts its CPU', async () => {
    const before = threadCpuSnapshot(process.pid);
    // A worker that does some work, then reports its tid the way XONE_HEAP_DIAG lines do, and its own CPU so far.
    const worker = new Worker(
      `const { readlinkSync, readFileSync } = require('node:fs'); const { parentPort } = require('node:worker_threads');
       let x = 0; for (let i = 0; i < 2e7; i++) x = (x * 31 + i) | 0;
       const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
       parentPort.postMessage([JSON.stringify({ heapDiag: 'spinner', pid: process.pid, tid: Number(readlinkSync('/proc/thread-self').split('/').pop()), x }), ns]);
       setTimeout(() => {}, 5000);`,
      { eval: true },
    );
    const [line, ownNs] = await new Promise<[string, number]>((resolve) => worker.once('message', resolve));
    const after = threadCpuSnapshot(process.pid);
    const names = threadNamesFromHeapDiag(`${line}\n{"heapDiag":"other","pid":1,"tid":5}\nnot json\n`, process.pid);
    expect([...names.values()]).toEqual(['spinner']);
    const split = threadCpuDelta(process.pid, before, after, 0, names);
    await worker.terminate();
    const spinner = split.threads.find((t) => t.name === 'spinner');
    expect(ownNs).toBeGreaterThan(0);
    expect(spinner?.cpuMs).toBeGreaterThanOrEqual(Math.floor(ownNs / 1e6));
    expect(split.threads.some((t) => t.name === 'main' && t.tid === process.pid)).toBe(true);
  });

  it.runIf(process.platform === 'linux')("classes this process's resident mappings, the node binary among the files", () => {
    const c = smapsClasses(process.pid)!;
    expect(c.fileMb).toBeGreaterThan(10);
    expect(c.largestFiles[0]?.name).toMatch(/node/);
    expect(c.otherAnonMb + c.mainArenaMb + c.threadArenasMb).toBeGreaterThan(5);
    expect(smapsClasses(2 ** 22 + 1)).toBeUndefined();
  });
});
