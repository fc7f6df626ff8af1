import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { cloneName, clusterOwner } from './cluster-location.js';
import { isAlive } from './shared-services.js';

/**
 * What the suite writes and throws away, kept in memory (a tmpfs at /dev/shm) rather than on the disk:
 * each test file's database (about 600 files copied from the template, dropped when the file ends) and
 * the temporary folders of its processes (installed example projects, builds, browser profiles). On
 * ext4 every new file looks for a free inode past the recently deleted ones, and the suite deletes
 * about 150,000 files a run: that search was a third of PostgreSQL's CPU (docs/capacity.md). Nothing
 * here outlives what made it, so losing it to a restart loses nothing.
 */
const SHM = '/dev/shm';
/** statfs' f_type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** The test databases' tablespace (test/support/database.ts creates each in it when the suite names it). */
export const SCRATCH_TABLESPACE = 'shopflow_scratch';

/** This clone's folder in memory, or undefined where /dev/shm is not a tmpfs (another system: the disk it is). */
export function memoryDir(): string | undefined {
  try {
    if (statfsSync(SHM).type !== TMPFS_MAGIC) return undefined;
  } catch {
    return undefined;
  }
  return join(SHM, `shopflow-${cloneName()}`);
}

/**
 * A temporary folder in memory for one run's processes (their TMPDIR), removed by `remove`; the
 * folders of earlier runs whose process is gone (killed before their end) removed now.
 */
export function runTemporaryDir(): { dir: string; remove: () => void } | undefined {
  const memory = memoryDir();
  if (!memory) return undefined;
  const runs = join(memory, 'tmp');
  mkdirSync(runs, { recursive: true });
  for (const pid of readdirSync(runs)) if (!isAlive(Number(pid))) rmSync(join(runs, pid), { recursive: true, force: true });
  const dir = join(runs, String(process.pid));
  mkdirSync(dir);
  // As open as /tmp (sticky, writable by all), and the folders above it enterable, whatever root's
  // umask: the postgres user and the tests' other users reach into it as into /tmp.
  for (const [folder, mode] of [
    [memory, 0o755],
    [runs, 0o755],
    [dir, 0o1777],
  ] as const)
    chmodSync(folder, mode);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The clone's PostgreSQL cluster (`adminUrl`, a superuser's) with a tablespace `name` for the suite's
 * databases, in a folder of that name in `memory`; its name, or undefined without a tmpfs. After a
 * restart emptied /dev/shm the folder is made again, and PostgreSQL its own folders inside.
 */
export async function ensureScratchTablespace(
  adminUrl: string,
  name = SCRATCH_TABLESPACE,
  memory = memoryDir(),
): Promise<string | undefined> {
  if (!memory) return undefined;
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [known] = await sql<{ location: string }[]>`
      select pg_tablespace_location(oid) as location from pg_tablespace where spcname = ${name}`;
    const dir = known?.location ?? join(memory, name);
    // A new tablespace needs an empty folder: one left by an earlier cluster of this clone is stale.
    if (!known) rmSync(dir, { recursive: true, force: true });
    if (!existsSync(dir)) {
      // The folders above it open to the server's user (root's umask may close them), its own closed.
      mkdirSync(dirname(dir), { recursive: true });
      chmodSync(dirname(dir), 0o755);
      const owner = clusterOwner();
      ownedBy(owner, dir);
      // A restart emptied it: the folder named for the server's version, which PostgreSQL makes only
      // when the tablespace is created, holds its databases.
      if (known) {
        const [version] = await sql<{ folder: string }[]>`
          select 'PG_' || current_setting('server_version_num')::int / 10000 || '_' || catalog_version_no as folder
          from pg_control_system()`;
        ownedBy(owner, join(dir, version!.folder));
      }
    }
    if (!known) await sql.unsafe(`create tablespace ${name} location '${dir.replaceAll("'", "''")}'`);
    return name;
  } finally {
    await sql.end();
  }
}

/** A new folder of the PostgreSQL server's user (`owner` as root; else this one), closed to others. */
function ownedBy(owner: ReturnType<typeof clusterOwner>, dir: string): void {
  mkdirSync(dir, { mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
}
