import { join } from 'node:path';
import postgres from 'postgres';
import { z } from 'zod';
import { dataDir } from './paths.js';
import { localPassword } from './credentials.js';
import { runCommand } from './run-command.js';
import { withDatabase } from './postgres.js';
import { step } from './progress.js';
import {
  crashLocalServer,
  ensureLocalServer,
  runningLocalServer,
  stopLocalServer,
  TEMPORAL_SERVER_VERSION,
  type LocalServer,
} from './temporal-server.js';

/** Which Temporal server the bootstrap starts: `dev` (the default) or `cluster` (below). */
export const TEMPORAL_ENGINE_VARIABLE = 'SHOPFLOW_TEMPORAL';
const engineSchema = z.enum(['dev', 'cluster']);
export type TemporalEngine = z.infer<typeof engineSchema>;

export function temporalEngine(env: NodeJS.ProcessEnv = process.env): TemporalEngine {
  const value = env[TEMPORAL_ENGINE_VARIABLE] || 'dev';
  const parsed = engineSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(
    `${TEMPORAL_ENGINE_VARIABLE}=${JSON.stringify(value)} is not a choice: use "dev" (the default: the dev server ` +
      `on SQLite) or "cluster" (the Temporal server on the local PostgreSQL, as a cluster runs it).`,
  );
}

/** Fixed: the role and databases docker-compose.yml gives Temporal too (deploy/postgres-init). */
const ROLE = 'temporal';
const DATABASES = { temporal: 'temporal', temporal_visibility: 'visibility' } as const;

/**
 * The Temporal server on the local PostgreSQL (`postgresAdminUrl`, a superuser's), as a cluster runs
 * it: persistence and SQL visibility in two databases of their own role, four history shards
 * (config/temporal/cluster.yaml), its Web UI beside it; the databases laid out once per PostgreSQL
 * cluster.
 */
function cluster(postgresAdminUrl?: string): LocalServer {
  return {
    name: 'the Temporal server on PostgreSQL',
    environment: 'cluster',
    stateDir: join(dataDir, 'temporal-cluster'),
    preferredPorts: {
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
    },
    retentionDays: 1,
    prepare: async (sqlTool) => {
      if (!postgresAdminUrl) throw new Error('the cluster starts on a PostgreSQL the caller names');
      const database = await prepareDatabases(postgresAdminUrl, sqlTool);
      return { SHOPFLOW_TEMPORAL_DB_ADDRESS: database.address, SHOPFLOW_TEMPORAL_DB_PASSWORD: database.password };
    },
  };
}

/** The cluster, started on `postgresAdminUrl` when it is not running. */
export const ensureTemporalCluster = (postgresAdminUrl: string) => ensureLocalServer(cluster(postgresAdminUrl));
/** Stops the cluster (and its UI) if it is running. */
export const stopTemporalCluster = () => stopLocalServer(cluster());
/** SIGKILL to the cluster's server, as a crash would (`npm run soak`). */
export const crashTemporalCluster = () => crashLocalServer(cluster());
/** The cluster when it is up, without starting it. */
export const runningTemporalCluster = () => runningLocalServer(cluster());

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
