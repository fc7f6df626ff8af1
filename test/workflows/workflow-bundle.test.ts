import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../workers/setup/create-worker.js';
import { cachedWorkflowBundle, workflowBundleKey } from '../../workers/setup/workflow-bundle.js';
import { temporaryDir } from '../support/temporary-dirs.js';

const logger = new DefaultLogger('WARN');
const scratch = temporaryDir('shopflow-bundles');

const delivered = {
  workflowId: 'delivery-delivered-at-once',
  history: JSON.parse(
    readFileSync(fileURLToPath(new URL('./histories/delivery-delivered-at-once.json', import.meta.url)), 'utf8'),
  ) as unknown,
};

describe('the workflow bundle a worker process keeps between starts', () => {
  it('is built once per version of workflows/, replaces the older one, and replays a recorded run', async () => {
    const cacheDir = join(scratch, 'kept');
    const first = await cachedWorkflowBundle(workflowsPath, { cacheDir, logger });
    writeFileSync(join(cacheDir, 'workflows-older.js'), '// the bundle of an earlier version');
    const again = await cachedWorkflowBundle(workflowsPath, { cacheDir, logger });
    expect(first.built).toBe(true);
    expect(again).toEqual({ bundle: first.bundle, built: false });
    const codePath = (again.bundle as { codePath: string }).codePath;
    expect(basename(codePath)).toBe(`workflows-${workflowBundleKey(workflowsPath)}.js`);

    // With its own file gone the bundle is built again, and the other file of the folder is removed.
    rmSync(codePath);
    const rebuilt = await cachedWorkflowBundle(workflowsPath, { cacheDir, logger });
    expect(rebuilt.built).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([basename(codePath)]);

    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: rebuilt.bundle, replayName: 'kept-bundle' }, [delivered]))
      results.push(result);
    expect(results.map(({ workflowId, error }) => ({ workflowId, error }))).toEqual([
      { workflowId: delivered.workflowId, error: undefined },
    ]);
  }, 120_000);

  it('has a key that changes with any file of workflows/ and with nothing outside it', () => {
    const copy = join(scratch, 'copy');
    cpSync(join(workflowsPath, '..'), join(copy, 'workflows'), { recursive: true });
    const copiedPath = join(copy, 'workflows', basename(workflowsPath));
    const key = workflowBundleKey(copiedPath);
    writeFileSync(join(copy, 'outside.ts'), 'export const unrelated = 1;\n');
    expect(workflowBundleKey(copiedPath)).toBe(key);
    appendFileSync(join(copy, 'workflows', 'flows.ts'), '\n// a change\n');
    expect(workflowBundleKey(copiedPath)).not.toBe(key);
  });

  it('keeps the bundle in memory when its folder cannot be made', async () => {
    const notAFolder = join(scratch, 'a-file');
    writeFileSync(notAFolder, '');
    const { bundle, built } = await cachedWorkflowBundle(workflowsPath, { cacheDir: join(notAFolder, 'bundles'), logger });
    expect(built).toBe(true);
    expect((bundle as { code: string }).code).toContain('deliveryWorkflow');
  }, 120_000);
});
