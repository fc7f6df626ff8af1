import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/** Every entry under `root`: its path, and a file's content or a link's target. */
function tree(root: string, dir = root): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      const entry = lstatSync(path);
      const at = relative(root, path);
      if (entry.isSymbolicLink()) return [`${at} -> ${readlinkSync(path)}`];
      if (entry.isDirectory()) return [`${at}/`, ...tree(root, path)];
      return [`${at}: ${readFileSync(path, 'utf8')}`];
    });
}

/**
 * scripts/ensure-deps.mjs, the first step of `npm test` and `npm run dev` in a fresh clone: the
 * machine's cached install of the same lock copied whole into the clone's node_modules (several
 * copies at once), links and dot-files included.
 */
describe('the npm install of a fresh clone', () => {
  it("is the machine's cached install of its lock, copied whole", () => {
    const clone = temporaryDir('ensure-deps-clone');
    const cacheDir = temporaryDir('ensure-deps-cache');
    mkdirSync(join(clone, 'scripts'));
    copyFileSync(join(projectRoot, 'scripts', 'ensure-deps.mjs'), join(clone, 'scripts', 'ensure-deps.mjs'));
    const lock = '{ "name": "clone", "lockfileVersion": 3 }\n';
    writeFileSync(join(clone, 'package-lock.json'), lock);
    const lockHash = createHash('sha256').update(lock).digest('hex');
    const cached = join(cacheDir, 'node_modules', lockHash);
    for (const folder of ['.bin', 'left-pad/lib', '@scope/tool/dist']) mkdirSync(join(cached, folder), { recursive: true });
    writeFileSync(join(cached, '.shopflow-lock-hash'), lockHash);
    writeFileSync(join(cached, '.package-lock.json'), '{}');
    writeFileSync(join(cached, 'left-pad', 'lib', 'index.js'), 'module.exports = 1;');
    writeFileSync(join(cached, '@scope', 'tool', 'dist', 'cli.js'), '#!/usr/bin/env node');
    symlinkSync('../@scope/tool/dist/cli.js', join(cached, '.bin', 'tool'));

    const ensureDeps = () => {
      const run = spawnSync(process.execPath, [join(clone, 'scripts', 'ensure-deps.mjs')], {
        env: { ...process.env, SHOPFLOW_CACHE_DIR: cacheDir },
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      return run.stderr;
    };

    expect(ensureDeps()).toMatch(/✓ npm dependencies copied in/);
    expect(tree(join(clone, 'node_modules'))).toEqual(tree(cached));
    expect(tree(cached)).toContain('.bin/tool -> ../@scope/tool/dist/cli.js');
    // Installed: a second start copies nothing.
    expect(ensureDeps()).toBe('');
  });
});
