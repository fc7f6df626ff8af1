import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { cacheDir } from './scripts/bootstrap/paths.js';

// Run through `npm test`, which starts PostgreSQL and Temporal and passes their addresses in the environment.
export default defineConfig({
  // Vitest keeps each file's last duration here and starts the longest first. In the machine's cache,
  // not the clone's node_modules: a fresh clone starts from this machine's last run, so a long file
  // (the fuzzer: two minutes) does not start last and run alone at the end.
  cacheDir: join(cacheDir, 'vitest'),
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Files share their worker's process and module cache: a fresh process and its imports per file
    // cost more CPU than most files' tests on a 2-core machine (docs/running.md). Nothing a file
    // changes globally may outlive it: a test that sets an environment variable restores it.
    isolate: false,
    // Four files at once on two cores: most files wait on services (a carrier's delay, a workflow's
    // timer, a rate window) part of the time, and a fourth keeps the cores busy (docs/capacity.md).
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A poll waits on real services (a save, a workflow): a loaded machine needs more than the 1 s default.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
    // Each file's seconds of CPU, for the closing lines of `npm test` (scripts/suite-run.ts), and its
    // temporary folders removed when it ends.
    setupFiles: ['test/support/file-cpu.ts', 'test/support/remove-temporary-dirs.ts'],
  },
});
