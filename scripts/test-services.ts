import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers';
import { z } from 'zod';
import { DEVELOPMENT_SETTINGS } from './bootstrap/postgres.js';
import { devDynamicConfig, devSqlitePragmas } from './bootstrap/temporal.js';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/**
 * Where `npm test` takes PostgreSQL and Temporal from: `local` (the default), this machine's binaries
 * as the bootstrap runs them; `containers`, throwaway containers from testcontainers, which the
 * bootstrap then uses as it uses any `DATABASE_URL` and `TEMPORAL_ADDRESS`.
 */
export const TEST_SERVICES_VARIABLE = 'SHOPFLOW_TEST_SERVICES';
const choiceSchema = z.enum(['local', 'containers']);
export type TestServicesChoice = z.infer<typeof choiceSchema>;

export function testServicesChoice(env: NodeJS.ProcessEnv = process.env): TestServicesChoice {
  const value = env[TEST_SERVICES_VARIABLE] || 'local';
  const parsed = choiceSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(
    `${TEST_SERVICES_VARIABLE}=${JSON.stringify(value)} is not a choice: use "local" (the default: PostgreSQL and ` +
      `Temporal from this machine's binaries) or "containers" (from testcontainers, with a Docker engine).`,
  );
}

const TEMPORAL_PORT = 7233;
const TEMPORAL_UI_PORT = 8233;

/** What the containers are made of: pure data, so it is checked without Docker. */
export interface ContainerPlan {
  postgres: { image: string; database: string; username: string; password: string; command: string[] };
  temporal: { image: string; command: string[]; ports: { grpc: number; ui: number }; ready: RegExp };
}

export function containerPlan(): ContainerPlan {
  return {
    // The major version of the system cluster here and of docker-compose.yml.
    postgres: {
      image: 'postgres:15',
      // The superuser the bootstrap expects: it creates the application role and the test template.
      database: 'postgres',
      username: 'postgres',
      password: 'postgres',
      command: ['postgres', ...Object.entries(DEVELOPMENT_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    },
    // The CLI's own image whose dev server embeds the server the bootstrap builds (1.32) and its UI
    // (2.54.1), with the dev server's settings and search attributes as flags.
    temporal: {
      image: 'temporalio/temporal:1.9.1',
      command: cliDevServerCommand(),
      ports: { grpc: TEMPORAL_PORT, ui: TEMPORAL_UI_PORT },
      ready: new RegExp(`Server:\\s+\\S+:${TEMPORAL_PORT}`),
    },
  };
}

/** `temporal server start-dev`, reachable from the host, as the dev server of config/temporal/dev.yaml runs. */
function cliDevServerCommand(): string[] {
  return [
    'server',
    'start-dev',
    '--db-filename',
    '/tmp/temporal.db',
    '--ip',
    '0.0.0.0',
    '--port',
    String(TEMPORAL_PORT),
    '--ui-port',
    String(TEMPORAL_UI_PORT),
    '--log-level',
    'warn',
    ...devSqlitePragmas().flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...Object.entries(devDynamicConfig()).flatMap(([name, [{ value }]]) => ['--dynamic-config-value', `${name}=${JSON.stringify(value)}`]),
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
  ];
}

export interface TestContainers {
  /** `DATABASE_URL`, `TEMPORAL_ADDRESS` and `TEMPORAL_UI_URL` of the containers. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/** Starts both containers (testcontainers' reaper removes them if this process dies first). */
export async function startTestContainers(plan = containerPlan()): Promise<TestContainers> {
  await assertContainerRuntime();
  const [postgres, temporal] = await Promise.all([
    new PostgreSqlContainer(plan.postgres.image)
      .withDatabase(plan.postgres.database)
      .withUsername(plan.postgres.username)
      .withPassword(plan.postgres.password)
      .withCommand(plan.postgres.command)
      .start(),
    new GenericContainer(plan.temporal.image)
      .withCommand(plan.temporal.command)
      .withExposedPorts(plan.temporal.ports.grpc, plan.temporal.ports.ui)
      .withWaitStrategy(Wait.forLogMessage(plan.temporal.ready))
      .withStartupTimeout(120_000)
      .start(),
  ]);
  const host = temporal.getHost();
  return {
    env: {
      DATABASE_URL: postgres.getConnectionUri(),
      TEMPORAL_ADDRESS: `${host}:${temporal.getMappedPort(plan.temporal.ports.grpc)}`,
      TEMPORAL_UI_URL: `http://${host}:${temporal.getMappedPort(plan.temporal.ports.ui)}`,
    },
    stop: async () => {
      await Promise.all([postgres.stop(), temporal.stop()]);
    },
  };
}

/** Fails at once, saying what to do, when no Docker engine answers (testcontainers would fail later, less plainly). */
async function assertContainerRuntime(): Promise<void> {
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      `${TEST_SERVICES_VARIABLE}=containers, but no Docker engine answers (${(error as Error).message}). ` +
        `Start Docker, or point DOCKER_HOST at one; or unset ${TEST_SERVICES_VARIABLE} to use this machine's ` +
        `PostgreSQL and Temporal binaries.`,
    );
  }
}
