import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { buildCopy } from '../../scripts/built-copy.js';
import { ProcessGroup } from '../../scripts/processes.js';
import { freeLoopbackPort } from '../../telemetry/metrics-server.js';
import { bearer } from '../support/fixtures.js';
import { processEnv, startApiWorkerRelay, stopApiWorkerRelay } from '../support/processes.js';
import { useSuite } from '../support/suite.js';
import { testEnv } from '../support/environment.js';

/**
 * What the image runs (Dockerfile), made and started here without Docker: the clone's files copied as
 * the build context, `npm run build` with every dependency (the first stage), then the development
 * dependencies gone (the second): the API, the worker and the relay start with `node` alone from the
 * compiled output, deliver a signed webhook end to end, and write nothing beside their code; the
 * one-shot migration runs from it too.
 */
const { db, shop, receiver } = useSuite({ shop: true, receiver: true });
/** The processes' lines, shown when one fails to start. */
const output: string[] = [];
const group = new ProcessGroup(
  (name, code) => exits.push(`${name} exited with ${code}`),
  (line) => void output.push(line),
);
const exits: string[] = [];
let copy: string;
const taskQueue = `built-${randomUUID()}`;

/** Every file of `root` but node_modules, with its size and time: what a process wrote shows. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of readdirSync(root, { recursive: true }) as string[]) {
    if (file === 'node_modules' || file.startsWith(`node_modules/`)) continue;
    const stat = statSync(join(root, file), { throwIfNoEntry: false });
    if (stat?.isFile()) files.set(file, `${stat.size} ${stat.mtimeMs}`);
  }
  return files;
}

/** node_modules as `npm prune --omit=dev` leaves it: the packages the lock does not mark dev-only. */
function productionModules(root: string): void {
  const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const kept = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) || entry.dev) continue;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    symlinkSync(join(projectRoot, path), join(root, path));
    kept.add(path.slice('node_modules/'.length));
  }
  // The commands of the packages kept (the migration runs dbmate's).
  const bin = join(projectRoot, 'node_modules', '.bin');
  mkdirSync(join(root, 'node_modules', '.bin'));
  for (const command of readdirSync(bin)) {
    const target = readlinkSync(join(bin, command));
    const owner = /^\.\.\/((?:@[^/]+\/)?[^/]+)\//.exec(target)?.[1];
    if (owner && kept.has(owner)) symlinkSync(join(bin, target), join(root, 'node_modules', '.bin', command));
  }
}

beforeAll(async () => {
  // The first stage: every dependency, and the build.
  copy = buildCopy();
  // The second: production dependencies only.
  rmSync(join(copy, 'node_modules'));
  productionModules(copy);
}, 600_000);

afterAll(async () => {
  await stopApiWorkerRelay(group, taskQueue);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('the built output (the image without Docker)', () => {
  it('holds no TypeScript runner, and compiled every entry point the image runs', () => {
    expect(existsSync(join(copy, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(copy, 'node_modules', 'vitest'))).toBe(false);
    for (const entry of ['api/server.js', 'workers/worker.js', 'workers/relay.js', 'scripts/migrate.js'])
      expect(existsSync(join(copy, entry)), entry).toBe(true);
    expect(readdirSync(join(copy, '.data', 'workflow-bundles')).filter((file) => file.endsWith('.js'))).toHaveLength(1);
    expect(existsSync(join(copy, 'web', 'dist', 'index.html'))).toBe(true);
  });

  it('migrates a new database with node alone, as the one-shot migration does', { timeout: 120_000 }, async () => {
    const database = `built_${randomBytes(6).toString('hex')}`;
    const url = new URL(testEnv('DATABASE_URL'));
    url.pathname = `/${database}`;
    // As the postgres container makes it (POSTGRES_DB): empty, owned by the owner role.
    const maintenance = postgres(testEnv('DATABASE_URL'), { max: 1, onnotice: () => {} });
    await maintenance.unsafe(`create database ${database}`);
    try {
      execFileSync(process.execPath, [join(copy, 'scripts', 'migrate.js')], {
        cwd: copy,
        // The role is the server's, shared by every test: it keeps the password the bootstrap gave it.
        env: {
          ...process.env,
          DATABASE_URL: url.toString(),
          APP_DB_PASSWORD: decodeURIComponent(new URL(testEnv('APP_DATABASE_URL')).password),
          NODE_ENV: 'test',
        },
        stdio: 'pipe',
      });
      const owner = postgres(url.toString(), { max: 1, onnotice: () => {} });
      const [{ migrations } = { migrations: 0 }] = await owner<
        { migrations: number }[]
      >`select count(*)::int as migrations from schema_migrations`;
      await owner.end();
      expect(migrations).toBe(readdirSync(join(projectRoot, 'db', 'migrations')).filter((file) => file.endsWith('.sql')).length);
    } finally {
      await maintenance.unsafe(`drop database if exists ${database} with (force)`);
      await maintenance.end();
    }
  });

  it(
    'runs the API, the worker and the relay with node alone: a customer made is a signed webhook delivered, nothing written beside the code',
    { timeout: 180_000 },
    async () => {
      const before = snapshot(copy);
      const inbox = randomUUID();
      const { secret } = await shop.newFlow({ name: 'Built', eventType: 'customer.created', url: receiver.url(inbox), state: 'on' });
      const apiUrl = await startApiWorkerRelay(
        group,
        processEnv(db.appUrl, taskQueue, { PORT: String(await freeLoopbackPort()) }),
        copy,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${output.join('')}`);
      });
      const { key } = await shop.newKey(['pos.customers.create', 'pos.customers.read']);
      const created = await fetch(`${apiUrl}/api/open/v1/customers`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Trần Thị Bích' }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const [delivered] = await receiver.waitFor(inbox, 1);
      const envelope = new Webhook(secret).verify(delivered!.body, delivered!.headers as Record<string, string>) as {
        data: { id: string };
      };
      expect(envelope.data.id).toBe(id);
      await group.stopAll(5_000);
      expect(exits).toEqual([]);
      const after = snapshot(copy);
      expect([...after].filter(([file, stamp]) => before.get(file) !== stamp).map(([file]) => relative(copy, join(copy, file)))).toEqual(
        [],
      );
    },
  );
});
