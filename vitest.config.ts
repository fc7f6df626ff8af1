import { defineConfig } from 'vitest/config';

// Run through `npm test`, which starts PostgreSQL and Temporal and passes their addresses in the environment.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
