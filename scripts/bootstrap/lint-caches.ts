import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepWhole } from './machine-cache.js';
import { cacheDir, dataDir, projectRoot } from './paths.js';

/**
 * The caches of `npm test`'s lint and type-check (ESLint's and Prettier's (format-check.ts): a file's
 * result kept while its content and the config are the same; tsc: its incremental build info), so
 * that a second run checks only what changed: about 8 s of CPU against 50. Kept in the clone's
 * `.data/lint/`; a clone without them (a fresh one) starts from the last run's of this machine.
 * ESLint's and tsc's name each file by its path, so they are carried over with that run's root
 * changed to this one's; Prettier's holds no path.
 */
const CACHES = {
  eslint: 'eslint.json',
  prettier: 'prettier-formatted.json',
  tsc: 'tsc.tsbuildinfo',
  tscWeb: 'tsc-web.tsbuildinfo',
} as const;
const here = join(dataDir, 'lint');
const machine = join(cacheDir, 'lint');
const rootFile = 'root';

/** Where each tool keeps its cache in this clone. */
export const lintCache = (tool: keyof typeof CACHES) => join(here, CACHES[tool]);

/** This clone's caches, from the machine's when it has none. */
export function seedLintCaches(): void {
  mkdirSync(here, { recursive: true });
  if (existsSync(join(here, rootFile)) || !existsSync(join(machine, rootFile))) return;
  const from = readFileSync(join(machine, rootFile), 'utf8');
  for (const name of Object.values(CACHES)) {
    const cached = join(machine, name);
    if (!existsSync(cached)) continue;
    // tsc's paths are relative to its file; the others' absolute.
    writeFileSync(
      join(here, name),
      readFileSync(cached, 'utf8').replaceAll(JSON.stringify(from).slice(0, -1), JSON.stringify(projectRoot).slice(0, -1)),
    );
  }
  writeFileSync(join(here, rootFile), projectRoot);
}

/** After a clean lint: this clone's caches become the machine's (each whole: another run may be reading them). */
export function keepLintCaches(): void {
  writeFileSync(join(here, rootFile), projectRoot);
  for (const name of [...Object.values(CACHES), rootFile])
    if (existsSync(join(here, name))) keepWhole(join(here, name), join(machine, name));
}
