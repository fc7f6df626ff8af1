import { projectRoot } from './bootstrap/paths.js';
import { step } from './bootstrap/progress.js';
import { runCommand } from './bootstrap/run-command.js';
import { bin, runSuite } from './suite-run.js';

/**
 * `npm test`: lint and type-check (while the services come up), then the whole vitest suite against
 * the real PostgreSQL and Temporal server. Extra arguments go to vitest (`npm test -- test/orders`).
 */
// SKIP_LINT=1 is for quick local iterations on a few files; CI never sets it.
const lint = () =>
  process.env.SKIP_LINT === '1'
    ? Promise.resolve()
    : step('lint and type-check', () =>
        Promise.all([
          runCommand(bin('eslint'), ['.'], { cwd: projectRoot }),
          runCommand(bin('prettier'), ['--check', '.'], { cwd: projectRoot }),
          runCommand(bin('tsc'), ['--noEmit'], { cwd: projectRoot }),
          runCommand(bin('tsc'), ['--noEmit', '-p', 'web'], { cwd: projectRoot }),
        ]),
      );
// The admin web app is built on every run (the API serves web/dist; test/web drives it in a browser).
const webBuild = () =>
  step('build the admin web app', () => runCommand(bin('vite'), ['build', 'web', '--logLevel', 'warn'], { cwd: projectRoot }));
await runSuite('npm test', process.argv.slice(2), { work: () => Promise.all([lint(), webBuild()]) });
