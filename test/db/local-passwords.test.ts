import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { localPassword } from '../../scripts/bootstrap/credentials.js';
import { testEnv } from '../support/environment.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * Development defaults a second local user could walk into (issue 47, item 5): the clone's cluster
 * trusted every local connection, and the roles had fixed passwords. Now every connection must give
 * the clone's own password, kept where only the clone's user reads it.
 */
describe("the clone's PostgreSQL", () => {
  it('refuses a connection without the password, or with the words the roles used to have', async () => {
    const { hostname, port } = new URL(testEnv('DATABASE_URL'));
    const attempts = [
      ['postgres', undefined],
      ['postgres', 'postgres'],
      ['shopflow_app', 'shopflow_app'],
      ['temporal', 'temporal-development'],
    ] as const;
    for (const [user, password] of attempts) {
      const sql = postgres({
        host: hostname,
        port: Number(port),
        database: 'postgres',
        user,
        ...(password ? { password } : {}),
        max: 1,
        connect_timeout: 10,
      });
      const refused = await sql`select 1`.then(
        () => 'connected',
        (error: { code?: string; message?: string }) => error.code ?? error.message,
      );
      await sql.end({ timeout: 1 });
      // 28P01: wrong password; 28000: no such role; a missing password fails before it is sent.
      expect({ user, password, refused }).toEqual({ user, password, refused: expect.not.stringMatching(/^connected$/) });
      expect(refused).toMatch(/^28P01$|^28000$|password/i);
    }
    // The suite's own connection gives the password and is let in.
    const owner = postgres(testEnv('DATABASE_URL'), { max: 1 });
    expect(await owner`select current_user as user`).toEqual([{ user: 'postgres' }]);
    await owner.end();
  });

  it("keeps each password in a file only the clone's user reads, made once", () => {
    const file = join(temporaryDir('shopflow-credentials'), 'credentials', 'role.password');
    const first = localPassword(file);
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(localPassword(file)).toBe(first);
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
  });
});
