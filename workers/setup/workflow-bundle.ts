import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type Logger, type WorkflowBundleOption } from '@temporalio/worker';

const require = createRequire(import.meta.url);

/** Temporal's OpenTelemetry interceptors, for the runs whose start carried a trace (workflows/trace-interceptors.ts). */
const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL('../../workflows/trace-interceptors.ts', import.meta.url))];

/** Where worker processes keep the bundles they built, one file per version of `workflows/`. */
export const WORKFLOW_BUNDLES_DIR = fileURLToPath(new URL('../../.data/workflow-bundles/', import.meta.url));

/**
 * What the bundle of `workflowsPath` is built from: the files of its folder (eslint keeps workflow
 * code from importing any other of the project's files at run time; the types of activities it may
 * import leave no code) and the versions of the SDK's workflow library and interceptors, which the bundle embeds.
 */
export function workflowBundleKey(workflowsPath: string): string {
  const hash = createHash('sha256');
  const folder = dirname(workflowsPath);
  const files = (readdirSync(folder, { recursive: true }) as string[]).filter((file) => /\.[cm]?[jt]s$/.test(file)).sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(folder, file)))
      .update('\0');
  for (const library of ['@temporalio/workflow', '@temporalio/interceptors-opentelemetry']) {
    const { version } = JSON.parse(readFileSync(require.resolve(`${library}/package.json`), 'utf8')) as { version: string };
    hash.update(`${library}@${version}\0`);
  }
  hash.update(workflowsPath);
  return hash.digest('hex').slice(0, 24);
}

/**
 * The bundle a worker runs, built once per version of `workflows/` and kept in `cacheDir`: a worker
 * or relay restarted after a crash (or each `npm run dev`) starts without webpack's seconds of CPU.
 * Written under a temporary name and renamed, so no process reads half a file; every other file of
 * the folder (older versions) is removed. Where the folder cannot be written, the bundle stays in memory.
 */
export async function cachedWorkflowBundle(
  workflowsPath: string,
  { cacheDir = WORKFLOW_BUNDLES_DIR, logger }: { cacheDir?: string; logger?: Logger } = {},
): Promise<{ bundle: WorkflowBundleOption; built: boolean }> {
  const key = workflowBundleKey(workflowsPath);
  const codePath = join(cacheDir, `workflows-${key}.js`);
  if (existsSync(codePath)) return { bundle: { codePath }, built: false };
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    ...(logger ? { logger } : {}),
  });
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${codePath}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, codePath);
    // Another process's unfinished file goes too: its rename then fails and it keeps its bundle in memory.
    for (const file of readdirSync(cacheDir)) if (join(cacheDir, file) !== codePath) rmSync(join(cacheDir, file), { force: true });
  } catch {
    return { bundle: { code }, built: true };
  }
  return { bundle: { codePath }, built: true };
}
