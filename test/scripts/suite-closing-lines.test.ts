import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { failedTests, topFiles } from '../../scripts/suite-run.js';
import { projectRoot } from '../../scripts/bootstrap/paths.js';

const report = (testResults: Parameters<typeof failedTests>[0][number]['testResults']) => ({
  numPassedTests: 1,
  numFailedTests: 1,
  numPendingTests: 0,
  testResults,
});

describe("the suite's closing lines", () => {
  it('name each failed test with the first line of its failure and the last lines before its stack, from either pass, and nothing for a passed one', () => {
    const lines = failedTests([
      report([
        {
          name: join(projectRoot, 'test/orders/orders.test.ts'),
          assertionResults: [
            { fullName: 'orders lists', status: 'passed', failureMessages: [] },
            {
              fullName: 'orders pages',
              status: 'failed',
              failureMessages: ['AssertionError: expected 2 to be 3\n    at orders.test.ts:10'],
            },
            {
              fullName: 'orders starts the stack',
              status: 'failed',
              failureMessages: [
                `Error: npm run dev exited (code 1) before it was ready\n${Array.from({ length: 20 }, (_, line) => `output ${line}`).join('\n')}\n\n    at dev-runs.ts:40\n    at more`,
              ],
            },
          ],
        },
      ]),
      report([
        {
          name: join(projectRoot, 'test/workflows/replay.test.ts'),
          message: 'Failed to load url ../missing.js\nmore',
          assertionResults: [],
        },
      ]),
    ]);
    expect(lines).toEqual([
      '✗ test/orders/orders.test.ts › orders pages: AssertionError: expected 2 to be 3',
      '✗ test/orders/orders.test.ts › orders starts the stack: Error: npm run dev exited (code 1) before it was ready',
      ...Array.from({ length: 15 }, (_, line) => `    output ${line + 5}`),
      '✗ test/workflows/replay.test.ts: Failed to load url ../missing.js',
      '    more',
    ]);
  });

  it('list the ten slowest files of both passes, slowest first, the cluster pass named', () => {
    const file = (name: string) => join(projectRoot, 'test', `${name}.test.ts`);
    const dev = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [file(`dev-${index}`), index + 0.04]));
    const lines = topFiles(
      [
        { pass: '', seconds: dev },
        { pass: ' (cluster)', seconds: { [file('flows/delivery')]: 30 } },
      ],
      'slowest files (set-up and hooks included)',
    );
    expect(lines).toHaveLength(11);
    expect(lines.slice(0, 4)).toEqual([
      'The 10 slowest files (set-up and hooks included):',
      '   30.0 s  test/flows/delivery.test.ts (cluster)',
      '   11.0 s  test/dev-11.test.ts',
      '   10.0 s  test/dev-10.test.ts',
    ]);
    expect(lines.at(-1)).toBe('    3.0 s  test/dev-3.test.ts');
    expect(topFiles([{ pass: '', seconds: {} }], 'slowest files')).toEqual([]);
    // The same list of the files' seconds of CPU, under its own title.
    expect(topFiles([{ pass: '', seconds: dev }], 'files that took the most CPU', 2)).toEqual([
      'The 2 files that took the most CPU:',
      '   11.0 s  test/dev-11.test.ts',
      '   10.0 s  test/dev-10.test.ts',
    ]);
  });
});
