import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Folders a test file makes under the system's temporary one, each removed when the file ends
 * (test/support/remove-temporary-dirs.ts, a setup file of every test file). Without it each run of
 * the suite left its installed example projects, builds and key files behind: about 100 MB a run.
 */
const made: string[] = [];

/** A new empty folder `<tmp>/<prefix>-XXXXXX`, removed with everything in it after the file's tests. */
export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.push(dir);
  return dir;
}

/** Removes every folder `temporaryDir` made since the last call. */
export function removeTemporaryDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
