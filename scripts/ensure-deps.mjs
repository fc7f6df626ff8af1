// Installs npm dependencies when node_modules is missing or older than package-lock.json: a copy of
// the machine's cached install of the same lock and patches when there is one (a fresh clone: a few
// seconds against 20-35 for `npm ci`), else `npm ci`, whose result is cached for the next clone.
// Plain JavaScript with no dependencies: it runs before anything is installed.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
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
const nodeModules = join(root, 'node_modules');
const cacheRoot = join(
  process.env.SHOPFLOW_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'shopflow'),
  'node_modules',
);
const cached = join(cacheRoot, lockHash);
/** Kept installs: the newest of each lock a branch may come back to, never unbounded. */
const CACHED_INSTALLS = 3;

/** Copies at once: a copy of some 37,000 files waits on the disk more than on a core (one `cp` of it: 10 s in CI, four: half). */
const COPIES_AT_ONCE = 4;

/** `from` copied whole to `to` (which must not exist), its entries COPIES_AT_ONCE at a time; false when any copy failed. */
async function copy(from, to) {
  mkdirSync(to);
  const entries = readdirSync(from);
  const copyEntry = (name) =>
    new Promise((resolve) => {
      const child = spawn('cp', ['-a', join(from, name), to], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.once('error', () => resolve(false));
      child.once('close', (code) => resolve(code === 0));
    });
  let next = 0;
  const copied = await Promise.all(
    Array.from({ length: COPIES_AT_ONCE }, async () => {
      let ok = true;
      while (next < entries.length) ok = (await copyEntry(entries[next++])) && ok;
      return ok;
    }),
  );
  return copied.every(Boolean);
}

if (installed !== lockHash) {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  // A whole copy, not hard links: nothing written into one clone's node_modules reaches another's.
  if (existsSync(join(cached, '.shopflow-lock-hash'))) {
    console.error(`› copying npm dependencies from ${cached}…`);
    rmSync(nodeModules, { recursive: true, force: true });
    if (await copy(cached, nodeModules)) {
      const now = new Date();
      utimesSync(cached, now, now); // recently used: the last to be pruned
      console.error(`✓ npm dependencies copied in ${seconds()} s`);
    } else {
      rmSync(nodeModules, { recursive: true, force: true });
      install(seconds);
    }
  } else {
    install(seconds);
    await keepForNextClone();
  }
}

function install(seconds) {
  console.error('› installing npm dependencies (npm ci)…');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error('✗ npm ci failed; see the output above.');
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, lockHash);
  console.error(`✓ npm dependencies installed in ${seconds()} s`);
}

/** The fresh install copied into the machine's cache, whole or not at all (another run saving the same lock wins the rename). */
async function keepForNextClone() {
  try {
    mkdirSync(cacheRoot, { recursive: true });
    const work = join(cacheRoot, `.saving-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    if (!(await copy(nodeModules, work))) return rmSync(work, { recursive: true, force: true });
    try {
      renameSync(work, cached);
    } catch {
      rmSync(work, { recursive: true, force: true });
    }
    const others = readdirSync(cacheRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== lockHash)
      .map((entry) => join(cacheRoot, entry.name))
      .map((path) => ({ path, at: statSync(path).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of others.slice(CACHED_INSTALLS - 1)) rmSync(old.path, { recursive: true, force: true });
  } catch (error) {
    // The cache only saves time: a full disk or a read-only home leaves this install as it is.
    console.error(`(the install was not kept for the next clone: ${error.message})`);
  }
}
