import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { bootstrap, bootstrapTemporal, type Services } from './bootstrap/index.js';
import type { FileDurations } from './file-durations-reporter.js';
import { TEMPORAL_ENGINE_VARIABLE, temporalEngine } from './bootstrap/temporal-cluster.js';
import { dataDir, projectRoot } from './bootstrap/paths.js';
import { say, step } from './bootstrap/progress.js';
import { stopCommands } from './bootstrap/run-command.js';
import { ensureOapiCodegen } from './bootstrap/oapi-codegen.js';
import { ensurePythonTools } from './bootstrap/python-tools.js';
import { ensureScratchTablespace, runTemporaryDir } from './bootstrap/memory-scratch.js';
import { startTestContainers, testServicesChoice, type TestContainers, type TestServicesChoice } from './test-services.js';

export const bin = (tool: string) => join(projectRoot, 'node_modules', '.bin', tool);

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The suite's launcher, for `npm test` and `npm run fuzz`: `work` (the lint, a build) started at once,
 * beside the services (PostgreSQL and Temporal, local or from containers, the migrated template) and
 * the tools tests run (the fuzzer, the Python and Go client generators); then vitest with `vitestArgs`
 * and the services' environment, then the plain closing line CI reads. A failure or a signal stops
 * every command it started and leaves the services. Exits.
 *
 * `clusterPass`: test files a whole run (no `vitestArgs`, the dev server, this machine's services) takes
 * on the Temporal cluster (SHOPFLOW_TEMPORAL=cluster) after the others, and only there.
 */
export async function runSuite(
  command: string,
  vitestArgs: string[],
  options: { work?: () => Promise<unknown>; env?: Record<string, string>; clusterPass?: string[] } = {},
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

  // Before anything starts: a wrong SHOPFLOW_TEST_SERVICES or SHOPFLOW_TEMPORAL is told at once.
  let choice: TestServicesChoice;
  let clusterPass: string[] = [];
  try {
    choice = testServicesChoice();
    const whole = vitestArgs.length === 0 && temporalEngine() === 'dev';
    // The cluster runs on this machine's PostgreSQL, beside its own Temporal: not with given services.
    if (whole && options.clusterPass && choice === 'local' && !process.env.TEMPORAL_ADDRESS) clusterPass = options.clusterPass;
  } catch (error) {
    return end(1, undefined, error);
  }
  const work = Promise.all([options.work?.(), ensurePythonTools(), ensureOapiCodegen()]);
  // Handled here, awaited below: a failed bootstrap ends the run before it is awaited.
  work.catch(() => undefined);
  // Said explicitly: without it every process (and the bootstrap's own settings) assumes production.
  process.env.NODE_ENV = 'test';
  // The clone's own cluster (not a given server, not a container's), where a tablespace can be put in memory.
  const ownCluster = choice === 'local' && !process.env.DATABASE_URL;
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
  const tablespace = ownCluster
    ? await ensureScratchTablespace(services.adminUrl).catch((error: unknown) => end(1, services, error))
    : undefined;
  const scratch = runTemporaryDir();
  say(`› services ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running the suite`);

  const env = {
    ...process.env,
    ...services.env,
    ...options.env,
    ...(tablespace ? { SHOPFLOW_TEST_TABLESPACE: tablespace } : {}),
    ...(scratch ? { TMPDIR: scratch.dir } : {}),
    NODE_ENV: 'test',
    SIMULATOR_TLS_CERT_FILE: services.certificate.certFile,
    SIMULATOR_TLS_KEY_FILE: services.certificate.keyFile,
  };
  const resultsFile = join(dataDir, 'test-results.json');
  let code = await runVitest(firstPassArguments(vitestArgs, clusterPass), env, resultsFile);
  const results = [resultsFile];
  if (clusterPass.length > 0 && !interrupted) {
    say(
      `\n› the engine's own tests (workflows, deliveries, shipments, housekeeping), on the Temporal cluster (${TEMPORAL_ENGINE_VARIABLE}=cluster)`,
    );
    const cluster = await bootstrapTemporal('cluster').catch((error: unknown) => end(1, services, error));
    const clusterResults = join(dataDir, 'test-results-cluster.json');
    const clusterCode = await runVitest(
      clusterPass,
      { ...env, TEMPORAL_ADDRESS: cluster.address, TEMPORAL_UI_URL: cluster.uiUrl },
      clusterResults,
    );
    await cluster.stop();
    code ||= clusterCode;
    results.push(clusterResults);
  }
  await services.stop();
  await containers?.stop();
  scratch?.remove();
  // The plain closing lines CI reads: each failed test (a CI log keeps only its tail), then "N passed, N failed" (both passes).
  const reports = results.filter((file) => existsSync(file)).map((file) => vitestReport.parse(JSON.parse(readFileSync(file, 'utf8'))));
  const durations = results.map((file, pass) => ({
    pass: pass === 0 ? '' : ' (cluster)',
    ...(existsSync(durationsFile(file))
      ? (JSON.parse(readFileSync(durationsFile(file), 'utf8')) as FileDurations)
      : { seconds: {}, cpuSeconds: {} }),
  }));
  for (const line of topFiles(durations, 'slowest files (set-up and hooks included)')) console.log(line);
  const cpu = durations.map(({ pass, cpuSeconds }) => ({ pass, seconds: cpuSeconds }));
  for (const line of topFiles(cpu, 'files that took the most CPU (theirs and their child processes’)')) console.log(line);
  for (const line of failedTests(reports)) console.log(line);
  if (reports.length > 0) {
    const sum = (key: 'numPassedTests' | 'numFailedTests' | 'numPendingTests') => reports.reduce((total, report) => total + report[key], 0);
    console.log(`Tests: ${sum('numPassedTests')} passed, ${sum('numFailedTests')} failed, ${sum('numPendingTests')} skipped`);
  }
  say(`${code === 0 ? '✓' : '✗'} ${command} finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}

/** The part of vitest's JSON report the closing lines read. */
const vitestReport = z.object({
  numPassedTests: z.number(),
  numFailedTests: z.number(),
  numPendingTests: z.number(),
  testResults: z.array(
    z.object({
      name: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(z.object({ fullName: z.string(), status: z.string(), failureMessages: z.array(z.string()) })),
    }),
  ),
});

/** The first pass's vitest arguments: each test once, so the cluster pass's files are left out of it. */
export function firstPassArguments(vitestArgs: string[], clusterPass: string[]): string[] {
  return [...vitestArgs, ...clusterPass.flatMap((file) => ['--exclude', file])];
}

/**
 * The ten files of either pass with the most seconds, most first, under `title`: of wall time, where
 * the suite's minutes go; of CPU, what each file cost the others on a CPU-bound machine.
 */
export function topFiles(passes: { pass: string; seconds: Record<string, number> }[], title: string, count = 10): string[] {
  const files = passes.flatMap(({ pass, seconds }) =>
    Object.entries(seconds).map(([file, taken]) => ({ name: `${relative(projectRoot, file)}${pass}`, taken })),
  );
  if (files.length === 0) return [];
  const top = files.sort((a, b) => b.taken - a.taken).slice(0, count);
  return [`The ${top.length} ${title}:`, ...top.map(({ name, taken }) => `${taken.toFixed(1).padStart(7)} s  ${name}`)];
}

/**
 * "✗ file › test: first line of its failure" for each failed test, and for each file that failed
 * without one (an import error), then the message's last lines before its stack, indented: what a
 * child process printed before it failed is often only there, and CI keeps only the log's end.
 */
export function failedTests(reports: z.infer<typeof vitestReport>[]): string[] {
  return reports.flatMap((report) =>
    report.testResults.flatMap((file) => {
      const name = relative(projectRoot, file.name);
      const failed = file.assertionResults.filter((test) => test.status === 'failed');
      if (failed.length === 0) return file.message ? [`✗ ${name}: ${firstLine(file.message)}`, ...lastLines(file.message)] : [];
      return failed.flatMap((test) => {
        const message = test.failureMessages[0] ?? '';
        return [`✗ ${name} › ${test.fullName}: ${firstLine(message)}`, ...lastLines(message)];
      });
    }),
  );
}

const firstLine = (text: string) => text.trim().split('\n')[0]?.slice(0, 300) ?? '';

/** Up to `count` lines after the first and before the stack (the first "    at …" line), indented. */
function lastLines(text: string, count = 15): string[] {
  const lines = text.trim().split('\n').slice(1);
  const stack = lines.findIndex((line) => /^\s+at /.test(line));
  return (stack === -1 ? lines : lines.slice(0, stack))
    .filter((line) => line.trim() !== '')
    .slice(-count)
    .map((line) => `    ${line.slice(0, 300)}`);
}

/** Where a run's file durations go (scripts/file-durations-reporter.ts), beside its JSON report. */
const durationsFile = (resultsFile: string) => resultsFile.replace(/\.json$/, '-durations.json');
const DURATIONS_REPORTER = join(projectRoot, 'scripts', 'file-durations-reporter.ts');

/** One vitest run with `args` and `env`; its JSON report in `resultsFile`; resolves to its exit code. */
async function runVitest(args: string[], env: NodeJS.ProcessEnv, resultsFile: string): Promise<number> {
  rmSync(resultsFile, { force: true });
  rmSync(durationsFile(resultsFile), { force: true });
  const reporters = ['--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, `--reporter=${DURATIONS_REPORTER}`];
  const vitest = spawn(bin('vitest'), ['run', ...reporters, ...args], {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { ...env, SHOPFLOW_FILE_DURATIONS: durationsFile(resultsFile) },
  });
  const forward = (signal: NodeJS.Signals) => vitest.kill(signal);
  for (const signal of SIGNALS) process.on(signal, forward);
  const code = await new Promise<number>((resolve) => vitest.once('exit', (exitCode) => resolve(exitCode ?? 1)));
  for (const signal of SIGNALS) process.off(signal, forward);
  return code;
}
