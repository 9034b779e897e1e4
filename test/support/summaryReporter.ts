/**
 * Prints the plain closing line `N passed, M failed[, K skipped]` after vitest's own summary, so CI can read the
 * outcome whatever reporter is in front of it. A failure is a failed test, and also an error no test owns: a failed
 * beforeAll/afterAll hook or a file that failed to load (its tests then show as skipped or passed, and the run still
 * failed), and an unhandled error.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** Errors recorded on a module or a suite rather than on a test (hooks, collection). */
function unownedErrors(mod: TestModule): number {
  let n = mod.errors().length;
  for (const suite of mod.children.allSuites()) n += suite.errors().length;
  return n;
}

/** The counts the summary line prints. */
export function summarize(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<unknown>,
): { passed: number; failed: number; skipped: number } {
  let passed = 0;
  let failed = unhandledErrors.length;
  let skipped = 0;
  for (const mod of testModules) {
    let moduleFailures = unownedErrors(mod);
    for (const test of mod.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed') moduleFailures++;
      else skipped++;
    }
    // A module vitest marks failed always counts, even when it recorded no error we can see.
    if (mod.state() === 'failed' && moduleFailures === 0) moduleFailures = 1;
    failed += moduleFailures;
  }
  return { passed, failed, skipped };
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const { passed, failed, skipped } = summarize(testModules, unhandledErrors);
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
