import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap } from './bootstrap/index.js';
import { dataDir, projectRoot } from './bootstrap/paths.js';
import { say } from './bootstrap/progress.js';
import { ensureSchemathesis } from './bootstrap/schemathesis.js';

export const bin = (tool: string) => join(projectRoot, 'node_modules', '.bin', tool);

/**
 * The suite's launcher, for `npm test` and `npm run fuzz`: the services (PostgreSQL, Temporal, the
 * migrated template) and the fuzzer, then `work` (the lint, a build) once they are ready, then vitest
 * with `vitestArgs` and the services' environment, then the plain closing line CI reads. Exits.
 */
export async function runSuite(
  command: string,
  vitestArgs: string[],
  options: { work?: Promise<unknown>; env?: Record<string, string> } = {},
) {
  const started = Date.now();
  // Said explicitly: without it every process (and the bootstrap's own settings) assumes production.
  process.env.NODE_ENV = 'test';
  const fuzzer = ensureSchemathesis();
  const services = await bootstrap('shopflow_test_template');
  try {
    await Promise.all([options.work, fuzzer]);
  } catch (error) {
    say(`✗ ${(error as Error).message}`);
    await services.stop();
    process.exit(1);
  }
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
  say(`${code === 0 ? '✓' : '✗'} ${command} finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}
