import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/network runs alone (`npm run test:network`): five node processes need the host to themselves.
    exclude: ['test/e2e/**/*.fixture.ts', 'test/network/**', 'node_modules/**', 'test/e2e/fixtures/**'],
    reporters: ['default', './test/support/summaryReporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run test files in parallel on both, each in its own fork (native addons are happier in forks).
    pool: 'forks',
    maxWorkers: 2,
  },
});
