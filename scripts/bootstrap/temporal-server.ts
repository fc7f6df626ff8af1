import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cacheDir, projectRoot } from './paths.js';
import { freePorts, isPortOpen, waitFor } from './ports.js';
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

/** The Temporal server both local engines run (the dev server on SQLite, the cluster on PostgreSQL), and its Web UI's. */
export const TEMPORAL_SERVER_VERSION = '1.32.1';
export const TEMPORAL_UI_VERSION = '2.54.1';
/** The configuration templates (the server and the UI render them from the environment given below). */
export const TEMPORAL_CONFIG_DIR = 'config/temporal';
/** Shopflow's dynamic configuration of a Temporal server: the cluster's and docker-compose.yml's; the dev server's adds its own. */
export const DYNAMIC_CONFIG_FILE = join(TEMPORAL_CONFIG_DIR, 'dynamicconfig', 'shopflow.yaml');

export type DynamicConfig = Record<string, [{ value: unknown }]>;

/** The dynamic configuration's settings, each with its one value (for every namespace). */
export function shopflowDynamicConfig(): DynamicConfig {
  return parse(readFileSync(join(projectRoot, DYNAMIC_CONFIG_FILE), 'utf8')) as DynamicConfig;
}

/** Each listener of a server: its four services (in one process) and the Web UI beside it. */
export interface ServerPorts {
  FRONTEND: number;
  FRONTEND_HTTP: number;
  FRONTEND_MEMBERSHIP: number;
  HISTORY: number;
  HISTORY_MEMBERSHIP: number;
  MATCHING: number;
  MATCHING_MEMBERSHIP: number;
  WORKER: number;
  WORKER_MEMBERSHIP: number;
  UI: number;
}

/** One way of running the server on this machine: the dev server or the cluster. */
export interface LocalServer {
  /** What the progress lines call it, "the Temporal dev server". */
  name: string;
  /** `<environment>.yaml` in config/temporal. */
  environment: 'dev' | 'cluster';
  /** Its state (pids, ports) and logs. */
  stateDir: string;
  /** Each preferred, the next free one when taken (another clone's server). */
  preferredPorts: ServerPorts;
  /** The namespace's retention, when the bootstrap registers it. */
  retentionDays: number;
  /** Readies its store; the environment its template reads beyond the ports. */
  prepare: (sqlTool: string) => Promise<Record<string, string>>;
}

interface ServerState {
  pid: number;
  uiPid: number;
  ports: ServerPorts;
}

const addressOf = (ports: ServerPorts) => `127.0.0.1:${ports.FRONTEND}`;
const uiUrlOf = (ports: ServerPorts) => `http://127.0.0.1:${ports.UI}`;

/**
 * The server as `server` runs it, started when not running, with the default namespace and the
 * project's search attributes registered, and its Web UI beside it. Built once per machine.
 */
export async function ensureLocalServer(server: LocalServer): Promise<TemporalService> {
  const running = await reuseRunning(server);
  if (running) return running;
  // Two runs finding it stopped at once would start two servers on the same store.
  return withLock(join(server.stateDir, 'start.lock'), `the start of ${server.name}`, async () => {
    return (await reuseRunning(server)) ?? startServer(server);
  });
}

/** The running server, its UI started again if it stopped, with the search attributes added since it started. */
async function reuseRunning(server: LocalServer): Promise<TemporalService | undefined> {
  const state = readState(server);
  if (!state || !isAlive(state.pid) || !(await isServing(addressOf(state.ports)))) return undefined;
  await ensureUi(server, state, await uiBinary());
  if (await registerSearchAttributes(addressOf(state.ports))) await awaitSearchAttributes(addressOf(state.ports), 30_000);
  return { address: addressOf(state.ports), uiUrl: uiUrlOf(state.ports) };
}

async function startServer(server: LocalServer): Promise<TemporalService> {
  const state = readState(server);
  const [{ server: binary, sqlTool }, ui] = await Promise.all([serverBinaries(), uiBinary()]);
  // A UI that outlived its server (a crash) is started again with it: the frontend's port may change.
  if (state && state.uiPid > 0 && isAlive(state.uiPid)) await stopProcessGroup(state.uiPid, 'the Temporal Web UI');
  const storeEnv = await server.prepare(sqlTool);
  const ports = await freePorts(state?.ports ?? server.preferredPorts);
  const address = addressOf(ports);
  const env = {
    ...process.env,
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [`SHOPFLOW_TEMPORAL_${name}_PORT`, String(port)])),
    ...storeEnv,
  };
  const next: ServerState = { pid: 0, uiPid: 0, ports };
  await step(`starting ${server.name} ${TEMPORAL_SERVER_VERSION} on ${address} (Web UI on port ${ports.UI})`, async () => {
    next.pid = startDetached(server, binary, ['--allow-no-auth', ...configArgs(server.environment), 'start'], env, 'server.log');
    writeState(server, next);
    await waitFor(server.name, () => frontendAnswers(address), 120_000);
    if (await registerNamespace(address, server.retentionDays)) await awaitNamespace(address, 30_000);
    await registerSearchAttributes(address);
    await awaitSearchAttributes(address, 60_000);
  });
  await ensureUi(server, next, ui);
  return { address, uiUrl: uiUrlOf(ports), started: true };
}

/** Stops the server (and its UI) if it is running; true when the server was. */
export async function stopLocalServer(server: LocalServer): Promise<boolean> {
  const state = readState(server);
  if (!state) return false;
  const running = [state.pid, state.uiPid].filter((pid) => pid > 0 && isAlive(pid));
  await Promise.all(running.map((pid) => stopProcessGroup(pid, server.name)));
  return running.includes(state.pid);
}

/** SIGKILL to the server, as a crash would (`npm run soak`); `ensureLocalServer` starts it again on the same ports and store. */
export async function crashLocalServer(server: LocalServer): Promise<boolean> {
  const state = readState(server);
  if (!state || !isAlive(state.pid)) return false;
  await crashProcessGroup(state.pid, server.name);
  return true;
}

/** The server when it is up, without starting it. */
export async function runningLocalServer(server: LocalServer): Promise<TemporalService | undefined> {
  const state = readState(server);
  if (!state || !isAlive(state.pid) || !(await isServing(addressOf(state.ports)))) return undefined;
  return { address: addressOf(state.ports), uiUrl: uiUrlOf(state.ports) };
}

/** The Web UI server, started when it is not running (it outlives a crash of the server it shows). */
async function ensureUi(server: LocalServer, state: ServerState, ui: string): Promise<void> {
  if (state.uiPid > 0 && isAlive(state.uiPid) && (await isPortOpen(state.ports.UI))) return;
  const env = {
    ...process.env,
    SHOPFLOW_TEMPORAL_FRONTEND_PORT: String(state.ports.FRONTEND),
    SHOPFLOW_TEMPORAL_UI_PORT: String(state.ports.UI),
  };
  state.uiPid = startDetached(server, ui, [...configArgs('ui'), 'start'], env, 'ui.log');
  writeState(server, state);
  await waitFor('the Temporal Web UI', () => isPortOpen(state.ports.UI), 30_000);
}

/**
 * base.yaml, then `<environment>.yaml`, of the templates' folder, relative to the project (the dynamic
 * configuration's path is too); the UI's in a folder of its own, which has no base.yaml.
 */
const configArgs = (environment: LocalServer['environment'] | 'ui') => [
  '--root',
  projectRoot,
  '--config',
  environment === 'ui' ? join(TEMPORAL_CONFIG_DIR, 'ui') : TEMPORAL_CONFIG_DIR,
  '--env',
  environment,
];

/** Detached in its own process group: a Ctrl-C aimed at a test run does not tear it down mid-run. */
function startDetached(server: LocalServer, binary: string, args: string[], env: NodeJS.ProcessEnv, logName: string): number {
  mkdirSync(server.stateDir, { recursive: true });
  const log = openSync(join(server.stateDir, logName), 'a');
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

/** The state a server of this engine wrote; none from an older checkout's dev server (the CLI's, without ports). */
function readState(server: LocalServer): ServerState | undefined {
  const file = join(server.stateDir, 'server.json');
  if (!existsSync(file)) return undefined;
  const state = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerState>;
  return state.ports ? (state as ServerState) : undefined;
}

function writeState(server: LocalServer, state: ServerState): void {
  mkdirSync(server.stateDir, { recursive: true });
  writeFileSync(join(server.stateDir, 'server.json'), JSON.stringify(state));
}
