import { expect, test } from 'vitest';
import { immediateGate, queueingGate } from '../../gateway/upstream/concurrencyGate.ts';

/** A job that runs until released. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  let started = false;
  return { job: () => ((started = true), done), release, started: () => started };
}

test('behavior: the Node gate queues past maxConcurrent and starts the next job when one ends', async () => {
  const gate = queueingGate(2);
  const jobs = [held(), held(), held()];
  const runs = jobs.map((j) => gate.run(j.job));
  await Promise.resolve();
  expect(jobs.map((j) => j.started())).toEqual([true, true, false]);
  expect([gate.activeCount, gate.pendingCount]).toEqual([2, 1]);
  jobs[0]?.release();
  await runs[0];
  await new Promise((r) => setTimeout(r, 0));
  expect(jobs[2]?.started()).toBe(true);
  for (const j of jobs) j.release();
  await Promise.all(runs);
  expect([gate.activeCount, gate.pendingCount]).toEqual([0, 0]);
});

test('behavior: the Workers gate starts every job at once (no wake-up from another request) and counts the overflow as pending', async () => {
  const gate = immediateGate(2);
  const jobs = [held(), held(), held()];
  const runs = jobs.map((j) => gate.run(j.job));
  expect(jobs.map((j) => j.started())).toEqual([true, true, true]);
  expect([gate.activeCount, gate.pendingCount]).toEqual([2, 1]);
  for (const j of jobs) j.release();
  await Promise.all(runs);
  expect([gate.activeCount, gate.pendingCount]).toEqual([0, 0]);
  // A failing job gives its slot back too.
  await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(gate.activeCount).toBe(0);
});
