import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { bootstrap, type Services } from './bootstrap/index.js';
import { dataDir, projectRoot } from './bootstrap/paths.js';
import { say, step } from './bootstrap/progress.js';
import { stopCommands } from './bootstrap/run-command.js';
import { ensureOapiCodegen } from './bootstrap/oapi-codegen.js';
import { ensurePythonTools } from './bootstrap/python-tools.js';
import { startTestContainers, testServicesChoice, type TestContainers, type TestServicesChoice } from './test-services.js';

export const bin = (tool: string) => join(projectRoot, 'node_modules', '.bin', tool);

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The suite's launcher, for `npm test` and `npm run fuzz`: `work` (the lint, a build) started at once,
 * beside the services (PostgreSQL and Temporal, local or from containers, the migrated template) and
 * the tools tests run (the fuzzer, the Python and Go client generators); then vitest with `vitestArgs`
 * and the services' environment, then the plain closing line CI reads. A failure or a signal stops
 * every command it started and leaves the services. Exits.
 */
export async function runSuite(
  command: string,
  vitestArgs: string[],
  options: { work?: () => Promise<unknown>; env?: Record<string, string> } = {},
): Promise<never> {
  const started = Date.now();
  // A signal ends the commands at once; the run then leaves the services as on any other end.
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
  const end = async (code: number, services?: Services, error?: unknown): Promise<never> => {
    if (error !== undefined && !interrupted) say(`✗ ${(error as Error).message}`);
    await stopCommands();
    await services?.stop();
    await containers?.stop();
    process.exit(interrupted ? 128 + constants.signals[interrupted] : code);
  };

  // Before anything starts: a wrong SHOPFLOW_TEST_SERVICES is told at once.
  let choice: TestServicesChoice;
  try {
    choice = testServicesChoice();
  } catch (error) {
    return end(1, undefined, error);
  }
  const work = Promise.all([options.work?.(), ensurePythonTools(), ensureOapiCodegen()]);
  // Handled here, awaited below: a failed bootstrap ends the run before it is awaited.
  work.catch(() => undefined);
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
  await work.catch((error: unknown) => end(1, services, error));
  if (interrupted) await end(1, services);
  say(`› services ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running the suite`);

  const resultsFile = join(dataDir, 'test-results.json');
  rmSync(resultsFile, { force: true });
  const vitest = spawn(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...vitestArgs], {
    cwd: projectRoot,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...services.env,
      ...options.env,
      NODE_ENV: 'test',
      SIMULATOR_TLS_CERT_FILE: services.certificate.certFile,
      SIMULATOR_TLS_KEY_FILE: services.certificate.keyFile,
    },
  });
  for (const signal of SIGNALS) process.on(signal, () => vitest.kill(signal));
  const code = await new Promise<number>((resolve) => vitest.once('exit', (exitCode) => resolve(exitCode ?? 1)));
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
  say(`${code === 0 ? '✓' : '✗'} ${command} finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}
