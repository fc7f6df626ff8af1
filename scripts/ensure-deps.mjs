// Installs npm dependencies when node_modules is missing or older than package-lock.json.
// Plain JavaScript with no dependencies: it runs before anything is installed.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = join(root, 'node_modules', '.shopflow-lock-hash');
// The lock and the patches applied on install (patches/, by patch-package): either changed means a new install.
const hash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json')));
const patches = join(root, 'patches');
if (existsSync(patches)) for (const name of readdirSync(patches).sort()) hash.update(name).update(readFileSync(join(patches, name)));
const lockHash = hash.digest('hex');

const installed = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
if (installed !== lockHash) {
  console.error('› installing npm dependencies (npm ci)…');
  const started = Date.now();
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error('✗ npm ci failed; see the output above.');
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, lockHash);
  console.error(`✓ npm dependencies installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
