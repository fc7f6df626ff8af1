import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap } from './bootstrap/index.js';
import { dataDir, projectRoot } from './bootstrap/paths.js';
import { say, step } from './bootstrap/progress.js';
import { runCommand } from './bootstrap/run-command.js';

/**
 * `npm test`: lint and type-check (while the services come up), then the whole vitest suite against
 * the real PostgreSQL and Temporal server. Extra arguments go to vitest (`npm test -- test/orders`).
 */
const bin = (tool: string) => join(projectRoot, 'node_modules', '.bin', tool);
const started = Date.now();

// SKIP_LINT=1 is for quick local iterations on a few files; CI never sets it.
const lint =
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
const webBuild = step('build the admin web app', () =>
  runCommand(bin('vite'), ['build', 'web', '--logLevel', 'warn'], { cwd: projectRoot }),
);
// Said explicitly: without it every process (and the bootstrap's own settings) assumes production.
process.env.NODE_ENV = 'test';
const services = await bootstrap('shopflow_test_template');
try {
  await Promise.all([lint, webBuild]);
} catch (error) {
  say(`✗ ${(error as Error).message}`);
  await services.stop();
  process.exit(1);
}
say(`› services ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running the suite`);

const resultsFile = join(dataDir, 'test-results.json');
rmSync(resultsFile, { force: true });
const vitest = spawn(
  bin('vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...process.argv.slice(2)],
  {
    cwd: projectRoot,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...services.env,
      NODE_ENV: 'test',
      SIMULATOR_TLS_CERT_FILE: services.certificate.certFile,
      SIMULATOR_TLS_KEY_FILE: services.certificate.keyFile,
    },
  },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => vitest.kill(signal));
const code = await new Promise<number>((resolve) => vitest.once('exit', (exitCode) => resolve(exitCode ?? 1)));
await services.stop();
// The plain closing line CI reads: "N passed, N failed".
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
  };
  console.log(`Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped`);
}
say(`${code === 0 ? '✓' : '✗'} npm test finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(code);
