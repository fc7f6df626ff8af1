import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterLocation, OUTSIDE_CLUSTERS_ROOT, pruneStaleClusters } from '../../scripts/bootstrap/cluster-location.js';
import { startLocalCluster, stopLocalPostgres } from '../../scripts/bootstrap/postgres.js';
import { temporaryDir } from '../support/temporary-dirs.js';

// The bootstrap runs PostgreSQL as the `postgres` user only when it runs as root; otherwise the cluster
// is always the clone's own `.data/postgres`, run as the user who runs the bootstrap.
const NOT_ROOT = 'runs as root only: as another user the bootstrap runs PostgreSQL as that user, who can enter the clone';
const asRoot = userInfo().uid === 0;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A clone's `.data` inside a `mktemp -d` folder (mode 0700), with a space in the clone's name. */
function closedClone(): string {
  const closed = temporaryDir('shopflow-closed');
  const data = join(closed, 'shop flow', '.data');
  mkdirSync(data, { recursive: true });
  return data;
}

describe('where the local PostgreSQL cluster goes', () => {
  it('is the clone’s own .data/postgres when the postgres user can enter it (or the bootstrap is not root)', () => {
    const open = temporaryDir('shopflow-open');
    chmodSync(open, 0o755);
    const data = join(open, '.data');
    expect(clusterLocation(data)).toMatchObject({ dir: join(data, 'postgres'), portFile: join(data, 'postgres.port') });
  });

  it('runs outside a clone the postgres user cannot enter, once per clone, and again at once', async (context) => {
    context.skip(!asRoot, NOT_ROOT);
    const data = closedClone();
    const location = clusterLocation(data);
    expect(location.dir.startsWith(`${OUTSIDE_CLUSTERS_ROOT}/`)).toBe(true);
    expect(clusterLocation(data).dir).toBe(location.dir);
    expect(clusterLocation(closedClone()).dir).not.toBe(location.dir);
    cleanups.push(() => rmSync(dirname(location.dir), { recursive: true, force: true }));

    const first = await startLocalCluster(location);
    cleanups.push(() => stopLocalPostgres(location));
    expect(first.started).toBe(true);
    expect(readFileSync(join(dirname(location.dir), 'checkout'), 'utf8').trim()).toBe(dirname(data));
    const sql = postgres(first.adminUrl, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<{ dataDirectory: string }[]>`select current_setting('data_directory') as "dataDirectory"`;
      expect(row!.dataDirectory).toBe(location.dir);
    } finally {
      await sql.end();
    }

    const again = await startLocalCluster(location);
    expect(again).toEqual({ adminUrl: first.adminUrl });
    expect(await stopLocalPostgres(location)).toBe(true);
  });

  it('says what to do when the postgres user cannot enter the outside folder either', (context) => {
    context.skip(!asRoot, NOT_ROOT);
    const data = closedClone();
    const location = clusterLocation(data, join(dirname(dirname(data)), 'clusters'));
    const message = (() => {
      try {
        location.prepare?.();
        return 'no error';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/cannot enter .*clusters.* either/);
    expect(message).toContain('run the command as a user other than root');
    expect(message).toContain(`chmod o+x ${JSON.stringify(dirname(dirname(data)))}`);
    expect(message).toContain('set DATABASE_URL');
  });

  it('removes the outside clusters of deleted clones, and keeps those of clones still there or still running', () => {
    const [root, live] = [temporaryDir('shopflow-clusters'), temporaryDir('shopflow-live-clone')];
    const slot = (name: string, checkout: string, running = false) => {
      mkdirSync(join(root, name, 'postgres'), { recursive: true });
      writeFileSync(join(root, name, 'checkout'), `${checkout}\n`);
      if (running) writeFileSync(join(root, name, 'postgres', 'postmaster.pid'), '4242\n');
      return join(root, name);
    };
    const gone = slot('gone', join(live, 'deleted clone'));
    const kept = slot('kept', live);
    const running = slot('running', join(live, 'deleted while running'), true);
    mkdirSync(join(root, 'unnamed'));

    expect(pruneStaleClusters(root)).toEqual([gone]);
    expect(existsSync(gone)).toBe(false);
    for (const left of [kept, running, join(root, 'unnamed')]) expect(existsSync(left)).toBe(true);
    expect(pruneStaleClusters(join(root, 'none'))).toEqual([]);
  });
});
