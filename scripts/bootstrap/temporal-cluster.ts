import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { parse } from 'yaml';
import { z } from 'zod';
import { cacheDir, dataDir, projectRoot } from './paths.js';
import { localPassword } from './credentials.js';
import { freePorts, isPortOpen, waitFor } from './ports.js';
import { runCommand } from './run-command.js';
import { withDatabase } from './postgres.js';
import { isAlive, withLock } from './shared-services.js';
import { goInstall } from './go-build.js';
import { step } from './progress.js';
import {
  awaitNamespace,
  awaitSearchAttributes,
  crashProcessGroup,
  frontendAnswers,
  isServing,
  registerNamespace,
  registerSearchAttributes,
  stopProcessGroup,
  type TemporalService,
} from './temporal-frontend.js';

/** Which Temporal server the bootstrap starts: `dev` (the default) or `cluster` (below). */
export const TEMPORAL_ENGINE_VARIABLE = 'SHOPFLOW_TEMPORAL';
const engineSchema = z.enum(['dev', 'cluster']);
export type TemporalEngine = z.infer<typeof engineSchema>;

export function temporalEngine(env: NodeJS.ProcessEnv = process.env): TemporalEngine {
  const value = env[TEMPORAL_ENGINE_VARIABLE] || 'dev';
  const parsed = engineSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(
    `${TEMPORAL_ENGINE_VARIABLE}=${JSON.stringify(value)} is not a choice: use "dev" (the default: the CLI's dev server ` +
      `on SQLite) or "cluster" (the Temporal server on the local PostgreSQL, as a cluster runs it).`,
  );
}

/** The server the `temporal` CLI v1.5.1 embeds (`temporal --version`), and its Web UI's: what the dev server runs. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
export const TEMPORAL_UI_VERSION = '2.42.1';
/** The configuration templates (the server and the UI render them from the environment given below). */
export const CLUSTER_CONFIG_DIR = 'config/temporal-cluster';
/** Shopflow's dynamic configuration of a Temporal server: the cluster's, docker-compose.yml's, and the dev server's flags. */
export const DYNAMIC_CONFIG_FILE = join(CLUSTER_CONFIG_DIR, 'dynamicconfig', 'shopflow.yaml');

/** The dynamic configuration's settings, each with its one value (for every namespace). */
export function clusterDynamicConfig(): Record<string, [{ value: unknown }]> {
  return parse(readFileSync(join(projectRoot, DYNAMIC_CONFIG_FILE), 'utf8')) as Record<string, [{ value: unknown }]>;
}
/** Fixed: the role and databases docker-compose.yml gives Temporal too (deploy/postgres-init). */
const ROLE = 'temporal';
const DATABASES = { temporal: 'temporal', temporal_visibility: 'visibility' } as const;
const RETENTION_DAYS = 1;

const stateDir = join(dataDir, 'temporal-cluster');
const stateFile = join(stateDir, 'server.json');

/** Each listener of the cluster, preferred here and the next free one when taken (another clone's cluster). */
const PREFERRED_PORTS = {
  FRONTEND: 17233,
  FRONTEND_HTTP: 17243,
  FRONTEND_MEMBERSHIP: 16933,
  HISTORY: 17234,
  HISTORY_MEMBERSHIP: 16934,
  MATCHING: 17235,
  MATCHING_MEMBERSHIP: 16935,
  WORKER: 17239,
  WORKER_MEMBERSHIP: 16939,
  UI: 18233,
};
type Ports = Record<keyof typeof PREFERRED_PORTS, number>;

interface ClusterState {
  pid: number;
  uiPid: number;
  ports: Ports;
}

const addressOf = (ports: Ports) => `127.0.0.1:${ports.FRONTEND}`;
const uiUrlOf = (ports: Ports) => `http://127.0.0.1:${ports.UI}`;

/**
 * The Temporal server on the local PostgreSQL (`postgresAdminUrl`, a superuser's), as a cluster runs
 * it: persistence and SQL visibility in two databases of their own role, four history shards, the
 * frontend, history, matching and worker services (in one process), and its Web UI beside it. Built
 * once per machine, laid out once per PostgreSQL cluster, started when not running, with the default
 * namespace and the project's search attributes registered.
 */
export async function ensureTemporalCluster(postgresAdminUrl: string): Promise<TemporalService> {
  const running = await reuseRunning();
  if (running) return running;
  // Two runs finding it stopped at once would start two servers on the same databases.
  return withLock(join(stateDir, 'start.lock'), 'the start of the Temporal cluster', async () => {
    return (await reuseRunning()) ?? startCluster(postgresAdminUrl);
  });
}

/** The running cluster, its UI started again if it stopped, with the search attributes added since it started. */
async function reuseRunning(): Promise<TemporalService | undefined> {
  const state = readState();
  if (!state || !isAlive(state.pid) || !(await isServing(addressOf(state.ports)))) return undefined;
  await ensureUi(state, await uiBinary());
  if (await registerSearchAttributes(addressOf(state.ports))) await awaitSearchAttributes(addressOf(state.ports), 30_000);
  return { address: addressOf(state.ports), uiUrl: uiUrlOf(state.ports) };
}

async function startCluster(postgresAdminUrl: string): Promise<TemporalService> {
  const state = readState();
  const [{ server, sqlTool }, ui] = await Promise.all([serverBinaries(), uiBinary()]);
  // A UI that outlived its server (a crash) is started again with it: the frontend's port may change.
  if (state && state.uiPid > 0 && isAlive(state.uiPid)) await stopProcessGroup(state.uiPid, 'the Temporal Web UI');
  const database = await prepareDatabases(postgresAdminUrl, sqlTool);
  const ports = await freePorts(state?.ports ?? PREFERRED_PORTS);
  const address = addressOf(ports);
  const env = {
    ...process.env,
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [`SHOPFLOW_TEMPORAL_${name}_PORT`, String(port)])),
    SHOPFLOW_TEMPORAL_DB_ADDRESS: database.address,
    SHOPFLOW_TEMPORAL_DB_PASSWORD: database.password,
  };
  const next: ClusterState = { pid: 0, uiPid: 0, ports };
  await step(`starting the Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL at ${address}`, async () => {
    next.pid = startDetached(server, ['--allow-no-auth', ...configArgs('cluster'), 'start'], env, 'server.log');
    writeState(next);
    await waitFor('the Temporal server', () => frontendAnswers(address), 120_000);
    if (await registerNamespace(address, RETENTION_DAYS)) await awaitNamespace(address, 30_000);
    await registerSearchAttributes(address);
    await awaitSearchAttributes(address, 60_000);
  });
  await ensureUi(next, ui);
  return { address, uiUrl: uiUrlOf(ports), started: true };
}

/** The cluster's binaries, built when missing (`npm test` builds them beside its lint, before the cluster pass). */
export async function ensureTemporalClusterBuild(): Promise<void> {
  await Promise.all([serverBinaries(), uiBinary()]);
}

/** Stops the cluster (and its UI) if it is running. */
export async function stopTemporalCluster(): Promise<boolean> {
  const state = readState();
  if (!state) return false;
  const running = [state.pid, state.uiPid].filter((pid) => pid > 0 && isAlive(pid));
  await Promise.all(running.map((pid) => stopProcessGroup(pid, 'the Temporal cluster')));
  return running.includes(state.pid);
}

/** SIGKILL to the server, as a crash would (`npm run soak`); `ensureTemporalCluster` starts it again on the same ports. */
export async function crashTemporalCluster(): Promise<boolean> {
  const state = readState();
  if (!state || !isAlive(state.pid)) return false;
  await crashProcessGroup(state.pid, 'Temporal server');
  return true;
}

/** The cluster when it is up, without starting it. */
export async function runningTemporalCluster(): Promise<TemporalService | undefined> {
  const state = readState();
  if (!state || !isAlive(state.pid) || !(await isServing(addressOf(state.ports)))) return undefined;
  return { address: addressOf(state.ports), uiUrl: uiUrlOf(state.ports) };
}

/** The Web UI server, started when it is not running (it outlives a crash of the server it shows). */
async function ensureUi(state: ClusterState, ui: string): Promise<void> {
  if (state.uiPid > 0 && isAlive(state.uiPid) && (await isPortOpen(state.ports.UI))) return;
  const env = {
    ...process.env,
    SHOPFLOW_TEMPORAL_FRONTEND_PORT: String(state.ports.FRONTEND),
    SHOPFLOW_TEMPORAL_UI_PORT: String(state.ports.UI),
  };
  state.uiPid = startDetached(ui, [...configArgs('ui'), 'start'], env, 'ui.log');
  writeState(state);
  await waitFor('the Temporal Web UI', () => isPortOpen(state.ports.UI), 30_000);
}

/** `<environment>.yaml` of the templates' folder, relative to the project (the dynamic configuration's path is too). */
const configArgs = (environment: 'cluster' | 'ui') => ['--root', projectRoot, '--config', CLUSTER_CONFIG_DIR, '--env', environment];

/** Detached in its own process group, as the dev server: a Ctrl-C aimed at a test run does not tear it down. */
function startDetached(binary: string, args: string[], env: NodeJS.ProcessEnv, logName: string): number {
  mkdirSync(stateDir, { recursive: true });
  const log = openSync(join(stateDir, logName), 'a');
  const child = spawn(binary, args, { cwd: projectRoot, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  if (!child.pid) throw new Error(`could not start ${binary}`);
  return child.pid;
}

/** The server and its SQL tool, built from the module proxy once per machine. */
async function serverBinaries(): Promise<{ server: string; sqlTool: string }> {
  const version = `v${TEMPORAL_SERVER_VERSION}`;
  const [server, sqlTool] = await goInstall(
    join(cacheDir, `temporal-server-${version}`),
    [`go.temporal.io/server/cmd/server@${version}`, `go.temporal.io/server/cmd/tools/sql@${version}`],
    `the Temporal server ${version} and its SQL tool`,
  );
  return { server: server!, sqlTool: sqlTool! };
}

async function uiBinary(): Promise<string> {
  const version = `v${TEMPORAL_UI_VERSION}`;
  const [ui] = await goInstall(
    join(cacheDir, `temporal-ui-server-${version}`),
    [`github.com/temporalio/ui-server/v2/cmd/server@${version}`],
    `the Temporal Web UI server ${version}`,
  );
  return ui!;
}

/**
 * Temporal's role (no power beyond its databases) and its two databases in the PostgreSQL cluster,
 * their schema laid out and brought to the server's version by its own tool. Idempotent and quick.
 */
async function prepareDatabases(adminUrl: string, sqlTool: string): Promise<{ address: string; password: string }> {
  // The clone's own password unless one is given: no fixed word a second local user could try.
  const password = process.env.TEMPORAL_DB_PASSWORD ?? localPassword(join(dataDir, 'credentials', `${ROLE}.password`));
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [role] = await admin`select 1 from pg_roles where rolname = ${ROLE}`;
    if (!role) await admin.unsafe(`create role ${ROLE}`);
    await admin.unsafe(
      `alter role ${ROLE} login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password '${password.replaceAll("'", "''")}'`,
    );
    for (const name of Object.keys(DATABASES)) {
      const [database] = await admin`select 1 from pg_database where datname = ${name}`;
      if (!database) await admin.unsafe(`create database ${name} owner ${ROLE}`);
      await admin.unsafe(`revoke all on database ${name} from public`);
    }
  } finally {
    await admin.end();
  }
  // The visibility schema asks for btree_gin: made as the superuser, so that the role needs no more rights.
  for (const name of Object.keys(DATABASES)) {
    const owner = postgres(withDatabase(adminUrl, name), { max: 1, onnotice: () => {} });
    await owner`create extension if not exists btree_gin`.finally(() => owner.end());
  }
  const { hostname, port } = new URL(adminUrl);
  const schemaRoot = await serverSchemaDir();
  const tool = (database: string, args: string[]) =>
    runCommand(sqlTool, ['--plugin', 'postgres12', '--ep', hostname, '-p', port || '5432', '-u', ROLE, '--db', database, ...args], {
      env: { ...process.env, SQL_PASSWORD: password },
    });
  await step('laying out the Temporal databases with its SQL tool', () =>
    Promise.all(
      Object.entries(DATABASES).map(async ([database, folder]) => {
        // Version 0.0 is the tool's bookkeeping alone; update-schema then applies what is missing.
        await tool(database, ['setup-schema', '-v', '0.0']);
        await tool(database, ['update-schema', '-d', join(schemaRoot, folder, 'versioned')]);
      }),
    ),
  );
  return { address: `${hostname}:${port || '5432'}`, password };
}

/** The server module's PostgreSQL schema folders (in the Go module cache, where the build put the module). */
async function serverSchemaDir(): Promise<string> {
  const output = await runCommand('go', ['mod', 'download', '-json', `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`]);
  const { Dir } = JSON.parse(output) as { Dir: string };
  return join(Dir, 'schema', 'postgresql', 'v12');
}

function readState(): ClusterState | undefined {
  if (!existsSync(stateFile)) return undefined;
  return JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
}

function writeState(state: ClusterState): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(stateFile, JSON.stringify(state));
}
