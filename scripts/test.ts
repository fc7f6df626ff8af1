import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { bootstrap, type Services } from './bootstrap/index.js';
import { dataDir, projectRoot } from './bootstrap/paths.js';
import { say, step } from './bootstrap/progress.js';
import { runCommand, stopCommands } from './bootstrap/run-command.js';
import { startTestContainers, testServicesChoice, type TestContainers } from './test-services.js';

/**
 * `npm test`: lint and type-check (while the services come up), then the whole vitest suite against
 * the real PostgreSQL and Temporal server. Extra arguments go to vitest (`npm test -- test/orders`).
 */
const bin = (tool: string) => join(projectRoot, 'node_modules', '.bin', tool);
const started = Date.now();

// A signal ends the commands at once; the run then leaves the services as on any other end.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let interrupted: NodeJS.Signals | undefined;
for (const signal of SIGNALS) {
  process.on(signal, () => {
    if (!interrupted) say(`\n› ${signal}: stopping what this run started…`);
    interrupted ??= signal;
    void stopCommands();
  });
}

let containers: TestContainers | undefined;

/** Ends the run: every command still running stopped, the services left, the containers stopped, then the exit. */
async function end(code: number, services?: Services, error?: unknown): Promise<never> {
  if (error !== undefined && !interrupted) say(`✗ ${(error as Error).message}`);
  await stopCommands();
  await services?.stop();
  await containers?.stop();
  process.exit(interrupted ? exitCodeOf(interrupted) : code);
}

function exitCodeOf(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

// Before anything starts: a wrong SHOPFLOW_TEST_SERVICES is told at once.
const choice = (() => {
  try {
    return testServicesChoice();
  } catch (error) {
    say(`✗ ${(error as Error).message}`);
    process.exit(1);
  }
})();

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
const checks = Promise.all([lint, webBuild]);
// Handled here, awaited below: a failed bootstrap ends the run before it is awaited.
checks.catch(() => undefined);
// Said explicitly: without it every process (and the bootstrap's own settings) assumes production.
process.env.NODE_ENV = 'test';
if (choice === 'containers') {
  containers = await step('starting PostgreSQL and Temporal containers (testcontainers)', startTestContainers).catch((error: unknown) =>
    end(1, undefined, error),
  );
  // The bootstrap uses them as any given service: it migrates the template and leaves them running.
  Object.assign(process.env, containers.env);
}
const services = await bootstrap('shopflow_test_template').catch((error: unknown) => end(1, undefined, error));
await checks.catch((error: unknown) => end(1, services, error));
if (interrupted) await end(1, services);
say(`› services ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running the suite`);

const resultsFile = join(dataDir, 'test-results.json');
rmSync(resultsFile, { force: true });
const suite = spawn(
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
for (const signal of SIGNALS) process.on(signal, () => suite.kill(signal));
const code = await new Promise<number>((resolve) => suite.once('exit', (exitCode) => resolve(exitCode ?? 1)));
await services.stop();
await containers?.stop();
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
