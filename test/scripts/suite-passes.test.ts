import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { bin, firstPassArguments } from '../../scripts/suite-run.js';

/** The files vitest would run with `args` (nothing run: `vitest list --filesOnly`). */
async function filesRun(args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(bin('vitest'), ['list', '--filesOnly', ...args], { cwd: projectRoot });
  return stdout
    .split('\n')
    .filter((line) => line.endsWith('.test.ts'))
    .sort();
}

describe("a whole run's two passes", () => {
  it('run each test file once: the cluster pass takes its files, the dev-server pass every other', async () => {
    const clusterPass = ['test/flows/shop-fairness.test.ts', 'test/shipments/shipment-crash.test.ts'];
    const [first, all] = await Promise.all([filesRun(firstPassArguments([], clusterPass)), filesRun([])]);
    expect(first).not.toContain(clusterPass[0]);
    expect(first).not.toContain(clusterPass[1]);
    expect([...first, ...clusterPass].sort()).toEqual(all);
  });

  it('leave nothing out of a run given files, which has no cluster pass', async () => {
    expect(await filesRun(firstPassArguments(['test/flows/shop-fairness.test.ts'], []))).toEqual(['test/flows/shop-fairness.test.ts']);
  });
});
