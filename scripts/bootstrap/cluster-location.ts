import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { dataDir, projectRoot } from './paths.js';
import { say } from './progress.js';

/** Where, as root, the clusters of clones the `postgres` user cannot enter are kept: one folder per clone. */
export const OUTSIDE_CLUSTERS_ROOT = '/var/lib/shopflow/postgres';

export interface ClusterLocation {
  /** The cluster's folder (PGDATA). */
  dir: string;
  /** Holds the port the cluster was last started on (in the clone: root reads it). */
  portFile: string;
  /** As root: the `postgres` system user, which owns and runs the cluster (PostgreSQL refuses root). */
  owner?: { uid: number; gid: number };
  /** For progress lines: the folder, and why it is outside the clone when it is. */
  label: string;
  /** Outside the clone: makes the folders above the cluster; throws what to do when that cannot work. */
  prepare?: () => void;
}

/**
 * `.data/postgres` in the clone, unless the bootstrap runs as root and the `postgres` user cannot
 * enter `.data` (a clone inside a `mktemp -d` folder or under /root): then a folder of this clone's
 * own, named by a hash of its path, under `outsideRoot`, which that user can always reach.
 */
export function clusterLocation(data = dataDir, outsideRoot = OUTSIDE_CLUSTERS_ROOT): ClusterLocation {
  const portFile = join(data, 'postgres.port');
  const owner = clusterOwner();
  const inside = join(data, 'postgres');
  if (!owner) return { dir: inside, portFile, label: relativeToProject(inside) };
  mkdirSync(data, { recursive: true });
  if (postgresCanEnter(data)) return { dir: inside, portFile, owner, label: relativeToProject(inside) };
  const slot = join(outsideRoot, cloneName(data));
  const dir = join(slot, 'postgres');
  return {
    dir,
    portFile,
    owner,
    label: `${dir} (the postgres user cannot enter ${data})`,
    prepare: () => prepareOutsideSlot(slot, data),
  };
}

/** A name of this machine's for the clone whose `.data` is `data`: a hash of its real path. */
export function cloneName(data = dataDir): string {
  return createHash('sha256').update(realpathSync(data)).digest('hex').slice(0, 16);
}

/**
 * Makes the folders above an outside cluster (root-owned, 0755: readable, not writable, by others)
 * and names the clone in `checkout` there, so a stale one can be told apart and removed. Fails with
 * what to do when even this place is closed to the `postgres` user.
 */
function prepareOutsideSlot(slot: string, data: string): void {
  for (const removed of pruneStaleClusters(dirname(slot))) say(`  removed ${removed}: its clone is gone`);
  try {
    const first = mkdirSync(slot, { recursive: true });
    // Explicit modes: root's umask may be 077, which is how a clone's own `.data` ends up closed.
    for (let dir = slot; first && dir.length >= first.length; dir = dirname(dir)) chmodSync(dir, 0o755);
    writeFileSync(join(slot, 'checkout'), `${dirname(realpathSync(data))}\n`);
  } catch (error) {
    throw new Error(cannotPlace(data, `${slot} could not be made: ${(error as Error).message}`));
  }
  if (!postgresCanEnter(slot)) throw new Error(cannotPlace(data, `the postgres user cannot enter ${slot} either`));
}

/**
 * Removes the outside clusters whose clone is gone (the folder their `checkout` names no longer
 * exists) and that are stopped (no `postmaster.pid`), so deleted `mktemp -d` clones leave no cluster
 * behind once another is made. Returns the folders removed.
 */
export function pruneStaleClusters(outsideRoot: string): string[] {
  if (!existsSync(outsideRoot)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(outsideRoot)) {
    const slot = join(outsideRoot, name);
    const checkoutFile = join(slot, 'checkout');
    if (!existsSync(checkoutFile) || existsSync(join(slot, 'postgres', 'postmaster.pid'))) continue;
    if (existsSync(readFileSync(checkoutFile, 'utf8').trim())) continue;
    rmSync(slot, { recursive: true, force: true });
    removed.push(slot);
  }
  return removed;
}

function cannotPlace(data: string, why: string): string {
  const closed = closedAncestors(data);
  return [
    `PostgreSQL runs as the postgres system user when the bootstrap runs as root, and that user cannot enter ${data}; ${why}.`,
    'Do one of:',
    '  - run the command as a user other than root;',
    closed.length > 0
      ? `  - let other users pass through the folders above the clone: chmod o+x ${closed.map((dir) => JSON.stringify(dir)).join(' ')};`
      : '  - let other users pass through the folders above the clone (chmod o+x on each);',
    '  - set DATABASE_URL to a PostgreSQL server you run (the bootstrap then makes no cluster).',
  ].join('\n');
}

/** The folders on the way to `path` that other users may not pass through (mode bits only). */
function closedAncestors(path: string): string[] {
  const closed: string[] = [];
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) closed.unshift(dir);
    } catch {
      // not made yet
    }
    if (dirname(dir) === dir) return closed;
  }
}

/** Asked of the system rather than worked out from modes: ACLs, groups and mounts all count. */
function postgresCanEnter(dir: string): boolean {
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir], { stdio: 'ignore' }).status === 0;
}

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` system user (made when missing). */
export function clusterOwner(): { uid: number; gid: number } | undefined {
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

function relativeToProject(path: string): string {
  const inProject = relative(projectRoot, path);
  return inProject.startsWith('..') ? path : inProject;
}
