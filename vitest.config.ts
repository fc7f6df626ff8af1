import { defineConfig } from 'vitest/config';

// Run through `npm test`, which starts PostgreSQL and Temporal and passes their addresses in the environment.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A poll waits on real services (a save, a workflow): a loaded machine needs more than the 1 s default.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
  },
});
