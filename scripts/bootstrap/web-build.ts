import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { keepNewest, keepWhole } from './machine-cache.js';
import { cacheDir, projectRoot } from './paths.js';
import { runCommand } from './run-command.js';

const web = join(projectRoot, 'web');
const dist = join(web, 'dist');
const stampFile = join(dist, '.source-hash');
const builds = join(cacheDir, 'web-dist');
/** Kept builds: the newest few a branch may come back to, never unbounded. */
const KEPT_BUILDS = 3;

/**
 * `vite build web` into `web/dist`, unless it already holds the build of these sources: the app's
 * files (it imports nothing outside `web/`) and the lock of its packages. A fresh clone copies the
 * machine's build of the same sources (about 12 s of Vite otherwise), and a new build is kept there.
 */
export async function buildWebApp(vite: string): Promise<void> {
  const hash = sourcesHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return;
  const cached = join(builds, hash);
  if (existsSync(join(cached, '.source-hash'))) {
    rmSync(dist, { recursive: true, force: true });
    cpSync(cached, dist, { recursive: true });
    return;
  }
  await runCommand(vite, ['build', 'web', '--logLevel', 'warn'], { cwd: projectRoot });
  writeFileSync(stampFile, hash);
  keepWhole(dist, cached);
  keepNewest(builds, KEPT_BUILDS, /^[0-9a-f]{64}$/);
}

/** Every file the build reads of `web/` (not its output or packages), by path and content, and the lock. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'dist' && entry.name !== 'node_modules') walk(path);
      } else hash.update(relative(web, path)).update(readFileSync(path));
    }
  };
  walk(web);
  return hash.update(readFileSync(join(projectRoot, 'package-lock.json'))).digest('hex');
}
