import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** The CPU seconds the file took in its vitest process and in the processes it started (scripts/file-durations-reporter.ts). */
    cpuSeconds?: number;
  }
}

/**
 * A setup file of every test file (vitest.config.ts): the CPU the file took, for the suite's closing
 * lines. The suite is bound by CPU on a 2-core machine, so a file's seconds of CPU say what it costs the
 * others better than its wall time. Files take their fork one at a time, so the fork's CPU from the
 * first hook to the last is the file's; with the processes it started and waited for (a browser, a
 * compiler, the real API and worker), read on Linux from /proc/self/stat. The shared services
 * (PostgreSQL, Temporal) are not counted.
 */
function cpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // utime, stime, cutime, cstime: fields 14-17, after the command's name in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100; // ticks of 1/100 s (USER_HZ)
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

let start = 0;
beforeAll(() => {
  start = cpuSeconds();
});
// vitest reads the first argument's destructuring for the fixtures a hook takes: this one takes none.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  file.meta.cpuSeconds = cpuSeconds() - start;
});
