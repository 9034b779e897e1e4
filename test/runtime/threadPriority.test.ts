/** lowerThreadPriority changes the nice value of the thread that calls it and of no other (Linux, real threads). */
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { spawnTsWorker } from '../../core/runtime/spawnTsWorker.ts';

/** The calling thread's nice value (field 19 of /proc/thread-self/stat). */
const niceOfThisThread = (): number => {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

/** Runs lowerThreadPriority(steps) in a new worker thread; answers the worker's nice before and after. */
async function inWorker(steps: number): Promise<{ before: number; after: number; changed: boolean }> {
  const worker = spawnTsWorker(new URL('./fixtures/niceWorker.ts', import.meta.url), { steps });
  try {
    return await new Promise((resolve, reject) => {
      worker.on('message', (m: { type?: string; before: number; after: number; changed: boolean }) => {
        if (m.type !== 'ready') resolve(m);
      });
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe.runIf(process.platform === 'linux')('lowerThreadPriority', () => {
  it('behavior: the calling worker thread becomes nicer than the main thread by the steps; the others keep theirs', async () => {
    const mine = niceOfThisThread();
    const r = await inWorker(3);
    expect(r.changed).toBe(true);
    expect(r.after).toBe(Math.min(19, getPriority(process.pid) + 3));
    expect(niceOfThisThread()).toBe(mine);
  });

  it('behavior: counted from the main thread, so a worker started by a lowered thread is not lowered twice', async () => {
    // This thread plays the lowered chain thread when it is a worker itself (vitest's pool); either way the worker's
    // nice is the main thread's plus the steps.
    const r = await inWorker(2);
    expect(r.after).toBe(Math.min(19, getPriority(process.pid) + 2));
  });

  it('boundary: never past 19', async () => {
    expect((await inWorker(40)).after).toBe(19);
  });
});
