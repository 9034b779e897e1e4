import { defineConfig } from 'vitest/config';

/**
 * `npm run test:network`: the multi-process network tests (test/network), one file at a time and never beside other
 * test files, so five node processes and their proxy have the 2-core host to themselves. `.ci/run` runs it after
 * `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/network/**/*.test.ts'],
    reporters: ['default', './test/support/summaryReporter.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
