import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { projectRoot } from './bootstrap/paths.js';
import { buildWebApp } from './bootstrap/web-build.js';
import { cachedWorkflowBundle } from '../workers/setup/workflow-bundle.js';
import { workflowsPath } from '../workers/setup/create-worker.js';

/**
 * `npm run build`: what the image runs, made ahead of time (Dockerfile; test/deployment/built-output.test.ts
 * starts the same output): the API, the worker, the relay and the migration compiled to JavaScript
 * beside their sources (tsconfig.build.json), the admin web app the API serves, and the workflow
 * bundle the workers load, so that no process compiles or bundles anything when it starts, and none
 * writes to its own folder.
 */
const run = (script: string, args: string[]) =>
  execFileSync(process.execPath, [join(projectRoot, 'node_modules', script), ...args], { cwd: projectRoot, stdio: 'inherit' });
// Emit only: `npm test`'s lint type-checks these files with the rest of the project, and checking them
// again here was two thirds of the build's CPU (19.6 s against 7.9 s here; the output is the same).
run('typescript/bin/tsc', ['-p', join(projectRoot, 'tsconfig.build.json'), '--noCheck']);
// The machine's build of the same sources when it has one (`npm test` and `npm run dev` made it).
await buildWebApp(join(projectRoot, 'node_modules', '.bin', 'vite'));
const { built } = await cachedWorkflowBundle(workflowsPath, { logger: new DefaultLogger('WARN') });
process.stderr.write(`✓ compiled; the workflow bundle ${built ? 'built' : 'was already there'}\n`);
