import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The project's files as git sees them under `root`: those it tracks and the new ones it does not
 * ignore (so `.data/`, node_modules and builds stay out), a deleted one left out. Paths relative to
 * `root`.
 */
export function projectFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(root, file)));
}
