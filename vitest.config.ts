import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**/*.fixture.ts', 'node_modules/**'],
    reporters: ['default', './test/support/summaryReporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run test files in parallel on both, each in its own fork (native addons are happier in forks).
    pool: 'forks',
    maxWorkers: 2,
  },
});
