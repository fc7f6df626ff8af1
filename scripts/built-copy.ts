import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot, typescriptImports } from './bootstrap/paths.js';
import { projectFiles } from './bootstrap/project-files.js';

/**
 * What the image builds (Dockerfile's first stage), made without Docker: the clone's files that git
 * keeps copied to a new temporary folder as the build context (.data/, node_modules and the like stay
 * out), this clone's node_modules linked in, and `npm run build` run there. Answers the folder; the
 * caller removes it. Built in a copy because the build compiles beside the sources, and a developer's
 * folder would then hold a second, stale copy of every module.
 */
export function buildCopy(): string {
  const copy = mkdtempSync(join(tmpdir(), 'shopflow-built-'));
  for (const file of projectFiles(projectRoot)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(projectRoot, file), join(copy, file));
  }
  symlinkSync(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));
  const build = spawnSync(process.execPath, [...typescriptImports, join(copy, 'scripts', 'build.ts')], { cwd: copy, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
  return copy;
}
