import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A development password kept in `file`, made (24 random bytes) the first time it is asked for. Only
 * the clone's user reads it (0600, in a 0700 folder when the folder is new): the local cluster asks
 * every connection for a password, so a second local user cannot walk into it (issue 47). The
 * superuser's sits beside its cluster (they go together); the roles' in the clone's `.data`.
 */
export function localPassword(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another bootstrap of this clone (dev and test side by side) made it first: theirs is read below.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
