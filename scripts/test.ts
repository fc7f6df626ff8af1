import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkFormatting } from './bootstrap/format-check.js';
import { lintCache, keepLintCaches, seedLintCaches } from './bootstrap/lint-caches.js';
import { projectRoot } from './bootstrap/paths.js';
import { buildWebApp } from './bootstrap/web-build.js';
import { step } from './bootstrap/progress.js';
import { runCommand } from './bootstrap/run-command.js';
import { bin, runSuite } from './suite-run.js';

/**
 * `npm test`: lint and type-check (while the services come up), then the whole vitest suite against
 * the real PostgreSQL and Temporal server. Extra arguments go to vitest (`npm test -- test/orders`).
 */
// SKIP_LINT=1 is for quick local iterations on a few files; CI never sets it.
// Each tool keeps a cache (scripts/bootstrap/lint-caches.ts): a second run checks what changed.
const lint = () =>
  process.env.SKIP_LINT === '1'
    ? Promise.resolve()
    : step('lint and type-check', async () => {
        seedLintCaches();
        await Promise.all([
          runCommand(bin('eslint'), ['.', '--cache', '--cache-strategy', 'content', '--cache-location', lintCache('eslint')], {
            cwd: projectRoot,
          }),
          checkFormatting(projectRoot, lintCache('prettier')),
          runCommand(bin('tsc'), ['--noEmit', '--incremental', '--tsBuildInfoFile', lintCache('tsc')], { cwd: projectRoot }),
          runCommand(bin('tsc'), ['--noEmit', '-p', 'web', '--incremental', '--tsBuildInfoFile', lintCache('tscWeb')], {
            cwd: projectRoot,
          }),
        ]);
        keepLintCaches();
      });
// The admin web app as its sources are now (the API serves web/dist; test/web drives it in a browser).
const webBuild = () => step('build the admin web app', () => buildWebApp(bin('vite')));
/**
 * The tests of what the engine itself does (its persistence across crashes, timers, schedules,
 * signals and updates, eager start, fairness, the operators' search queries on the SQL visibility
 * store): a whole run takes them on the Temporal cluster (SHOPFLOW_TEMPORAL=cluster), the engine a
 * deployment runs, and not again on the dev server, whose engine the other files' workflows exercise
 * (test-runs, conditions, cash on delivery, the new geography, the end-to-end files). Run alone
 * (`npm test -- <files>`) they take the dev server. test/workflows replays recorded histories and
 * bundles the workflow code without a server.
 */
const CLUSTER_PASS = [
  'test/flows/admin-flows-readable.test.ts',
  'test/flows/crash-recovery.test.ts',
  'test/flows/delivery-recovery.test.ts',
  'test/flows/delivery-workflow.test.ts',
  'test/flows/outbox-relay.test.ts',
  'test/flows/shop-fairness.test.ts',
  'test/operators/delivery-runs.test.ts',
  'test/operators/runbook-queries.test.ts',
  'test/shipments/forged-workflows.test.ts',
  'test/shipments/shipment-cancel.test.ts',
  'test/shipments/shipment-crash.test.ts',
  'test/shipments/shipment-push.test.ts',
  'test/shipments/shipment-push-slow-carrier.test.ts',
  'test/shipments/shipment-run-status.test.ts',
  'test/shipments/shipment-tracking.test.ts',
  'test/hardening/housekeeping.test.ts',
];
// A file renamed or removed would drop out of the pass unseen (vitest runs whatever the others match).
const gone = CLUSTER_PASS.filter((file) => !existsSync(join(projectRoot, file)));
if (gone.length > 0) throw new Error(`scripts/test.ts names test files that are not there: ${gone.join(', ')}`);
await runSuite('npm test', process.argv.slice(2), { work: () => Promise.all([lint(), webBuild()]), clusterPass: CLUSTER_PASS });
