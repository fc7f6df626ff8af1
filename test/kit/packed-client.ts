import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { keepNewest, keepWhole } from '../../scripts/bootstrap/machine-cache.js';
import { cacheDir, projectRoot } from '../../scripts/bootstrap/paths.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * `@shopflow/client` as an integrator gets it: the package's folder copied alone (nothing of the
 * repository around it), its dev dependencies installed from its own lock file (`npm ci`), then
 * `npm pack`, which builds it. Packed once per content of the folder, kept in the machine's cache
 * (the suite's temporary folder goes with its run), so the test files that install it, reruns and
 * fresh clones share one tarball. The npm registry must be reachable.
 */

const run = promisify(execFile);
const CLIENT = join(projectRoot, 'clients', 'typescript');
/** Packs of other contents kept in the machine's cache (a branch may come back to one). */
const KEPT_PACKS = 3;
/** Never copied: what an install, a build or a pack leaves in the folder. */
const LEFT_OUT = new Set(['node_modules', 'dist']);
const isPackFile = (name: string) => !LEFT_OUT.has(name) && !name.endsWith('.tgz');

/**
 * The environment of an npm run here: without the `npm_*` variables of the `npm test` around it, one of
 * which (`npm_config_local_prefix`) would make npm install into the repository instead of `cwd`.
 */
function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), ...extra };
}

/** Runs `npm args` in `cwd`; its output in the error when it fails. */
export async function npm(args: string[], cwd: string): Promise<string> {
  try {
    return (await run('npm', [...args, '--no-audit', '--no-fund'], { cwd, env: npmEnv(), maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }))
      .stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} in ${cwd} failed:\n${[stdout, stderr].filter(Boolean).join('\n')}`);
  }
}

function packFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => isPackFile(entry.name))
    .flatMap((entry) => (entry.isDirectory() ? packFiles(join(folder, entry.name)) : [join(folder, entry.name)]))
    .sort();
}

/** The tarball's name, as `npm pack` writes it: `shopflow-client-<version>.tgz`. */
export function tarballName(): string {
  const { name, version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * The packed client: `<dir>/clients/typescript/<tarball>` (the path `examples/order-sync` names,
 * relative to a tree of the same layout).
 */
export async function packedClient(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of packFiles(CLIENT)) hash.update(relative(CLIENT, file)).update('\0').update(readFileSync(file)).update('\0');
  const packs = join(cacheDir, 'client-packs');
  const dir = join(packs, hash.digest('hex').slice(0, 16));
  const tarball = join(dir, 'clients', 'typescript', tarballName());
  if (existsSync(tarball)) return tarball;
  const work = temporaryDir('client-pack');
  const copy = join(work, 'clients', 'typescript');
  cpSync(CLIENT, copy, { recursive: true, filter: (source) => source === CLIENT || isPackFile(source.split(/[\\/]/).pop()!) });
  await npm(['ci'], copy);
  await npm(['pack'], copy);
  rmSync(join(copy, 'node_modules'), { recursive: true, force: true });
  // Another run that packed the same content meanwhile keeps its own: either tarball serves.
  keepWhole(work, dir);
  keepNewest(packs, KEPT_PACKS, /^[0-9a-f]{16}$/);
  return tarball;
}

/**
 * `examples/order-sync` as its README installs it: its files beside the packed client, in a tree of
 * the repository's layout (its package.json names `../../clients/typescript/<tarball>`), `npm install`ed.
 * Returns the example's folder.
 */
export async function installedExample(): Promise<string> {
  const tarball = await packedClient();
  const root = temporaryDir('order-sync');
  mkdirSync(join(root, 'clients', 'typescript'), { recursive: true });
  copyFileSync(tarball, join(root, 'clients', 'typescript', basename(tarball)));
  const example = join(root, 'examples', 'order-sync');
  const source = join(projectRoot, 'examples', 'order-sync');
  cpSync(source, example, { recursive: true, filter: (path) => !/node_modules|\.sqlite/.test(relative(source, path)) });
  await npm(['install'], example);
  return example;
}
