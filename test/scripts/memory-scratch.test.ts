import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureScratchTablespace, memoryDir, runTemporaryDir, SCRATCH_TABLESPACE } from '../../scripts/bootstrap/memory-scratch.js';
import { withDatabase } from '../../scripts/bootstrap/postgres.js';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';

/**
 * scripts/bootstrap/memory-scratch.ts: on a machine with a tmpfs at /dev/shm (this one), what the suite
 * throws away is written to memory, not to the disk: each test file's database and its processes'
 * temporary folders.
 */
const memory = memoryDir();
const { db } = useSuite();
const server = postgres(withDatabase(testEnv('DATABASE_URL'), 'postgres'), { max: 1, onnotice: () => {} });
afterAll(async () => {
  await server.end();
});

describe.skipIf(!memory)('what the suite throws away, in memory', () => {
  it("puts each test file's database in the tablespace in memory", async () => {
    const [row] = await db.admin<{ tablespace: string }[]>`
      select t.spcname as tablespace from pg_database d join pg_tablespace t on t.oid = d.dattablespace
      where d.datname = current_database()`;
    expect(row?.tablespace).toBe(SCRATCH_TABLESPACE);
    const [place] = await db.admin<{ location: string }[]>`
      select pg_tablespace_location(oid) as location from pg_tablespace where spcname = ${SCRATCH_TABLESPACE}`;
    expect(place?.location.startsWith(`${memory}/`)).toBe(true);
  });

  it("gives the run's processes a temporary folder in memory", () => {
    expect(tmpdir().startsWith(`${memory}/tmp/`)).toBe(true);
  });

  it('makes the folder of its tablespace again after a restart emptied /dev/shm', async () => {
    const name = `shopflow_scratch_${randomBytes(4).toString('hex')}`;
    const database = `scratch_${randomBytes(4).toString('hex')}`;
    try {
      expect(await ensureScratchTablespace(testEnv('DATABASE_URL'), name, memory)).toBe(name);
      await server.unsafe(`create database ${database} tablespace ${name}`);
      await server.unsafe(`drop database ${database}`);
      // What a restart leaves: the tablespace in the catalogue, its folder gone.
      rmSync(join(memory!, name), { recursive: true, force: true });
      await expect(server.unsafe(`create database ${database} tablespace ${name}`)).rejects.toThrow();
      expect(await ensureScratchTablespace(testEnv('DATABASE_URL'), name, memory)).toBe(name);
      await server.unsafe(`create database ${database} tablespace ${name}`);
      await server.unsafe(`drop database ${database}`);
    } finally {
      await server.unsafe(`drop database if exists ${database}`);
      await server.unsafe(`drop tablespace if exists ${name}`);
      rmSync(join(memory!, name), { recursive: true, force: true });
    }
  });

  it("removes a run's temporary folder at its end, and a killed run's at the next start", () => {
    // The folder of a run whose process is gone: a pid that has just exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.pid'], { stdio: 'ignore' }).pid;
    const left = join(memory!, 'tmp', String(gone));
    mkdirSync(join(left, 'profile'), { recursive: true });
    const run = runTemporaryDir()!;
    expect(existsSync(left)).toBe(false);
    expect(existsSync(run.dir)).toBe(true);
    // As open as /tmp: the postgres user reaches into the folders the tests make there.
    expect(statSync(run.dir).mode & 0o7777).toBe(0o1777);
    // The launcher's own folder (this process's TMPDIR) stays: its run is alive.
    expect(existsSync(tmpdir())).toBe(true);
    run.remove();
    expect(existsSync(run.dir)).toBe(false);
  });
});
