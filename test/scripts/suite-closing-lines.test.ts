import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { failedTests } from '../../scripts/suite-run.js';
import { projectRoot } from '../../scripts/bootstrap/paths.js';

const report = (testResults: Parameters<typeof failedTests>[0][number]['testResults']) => ({
  numPassedTests: 1,
  numFailedTests: 1,
  numPendingTests: 0,
  testResults,
});

describe("the suite's closing lines", () => {
  it('name each failed test with the first line of its failure, from either pass, and nothing for a passed one', () => {
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
      '✗ test/workflows/replay.test.ts: Failed to load url ../missing.js',
    ]);
  });
});
