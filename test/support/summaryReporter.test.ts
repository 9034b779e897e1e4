/**
 * The summary line counts hook failures: a run whose tests pass but whose afterAll (or beforeAll) hook failed is a
 * failed run, so the line must not say "0 failed". Runs vitest on a fixture file in a child process.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

test('behavior: a failed afterAll and a failed beforeAll count as failures in the summary line', () => {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'test/support/fixtures/hookFailures.config.ts'],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' }, timeout: 120_000 },
  );
  const summary = run.stdout.trim().split('\n').at(-1);
  expect(run.status).not.toBe(0);
  // Two tests passed, the beforeAll suite's test was skipped, and the two hooks failed.
  expect(summary).toBe('2 passed, 2 failed, 1 skipped');
}, 120_000);
