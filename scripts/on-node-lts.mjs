// Runs a TypeScript entry point (`node scripts/on-node-lts.mjs <file.ts> [args…]`) on Node.js 24,
// the current LTS, whatever Node the machine has: the npm scripts go through it, so `npm run dev`
// and `npm test` need nothing but npm. A machine whose own Node is older gets Node 24 from the npm
// registry (the `node-<platform>-<arch>` package, the official binary), once, into the machine's
// cache (~/.cache/shopflow, as the Temporal builds). The dependencies are installed first
// (ensure-deps.mjs). Plain JavaScript with no dependencies: it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import './ensure-deps.mjs';

const LTS_MAJOR = 24;
/** The Node 24 a machine with an older one gets; a newer 24 of its own is used as it is. */
const LTS_VERSION = '24.22.3';

const cache = process.env.SHOPFLOW_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'shopflow');

function ltsNode() {
  if (Number(process.versions.node.split('.')[0]) >= LTS_MAJOR) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const dir = join(cache, `${pkg}-${LTS_VERSION}`);
  const binary = join(dir, 'bin', 'node');
  if (existsSync(binary)) return binary;
  console.error(
    `› this machine's Node is ${process.version}: fetching Node ${LTS_VERSION} (${pkg} from the npm registry) into ${dir}, once…`,
  );
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, '.node-'));
  try {
    const run = (command, args) => {
      const result = spawnSync(command, args, { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
      if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    };
    run('npm', ['pack', '--silent', `${pkg}@${LTS_VERSION}`]);
    run('tar', ['xzf', readdirSync(work).find((name) => name.endsWith('.tgz'))]);
    // Whole or not at all: another run fetching at once keeps its own copy, the first rename wins.
    try {
      renameSync(join(work, 'package'), dir);
    } catch (error) {
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.error(`✓ Node ${LTS_VERSION} at ${binary}`);
  return binary;
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/on-node-lts.mjs <file.ts> [args…]');
  process.exit(2);
}
const node = ltsNode();
const child = spawn(node, ['--import', new URL('typescript-imports.mjs', import.meta.url).href, entry, ...args], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // First on PATH, so that every process started below (npx, node) runs on it too.
    PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
    // V8's compiled code of every module kept on disk: each process below (a test file's API, worker
    // and relay, the dev run's servers, vitest's own) compiles its dependencies once per machine.
    // The suite is CPU-bound on 2 cores, and a process start costs about a tenth less with it.
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(cache, 'node-compile-cache'),
  },
});
// Ctrl-C reaches the whole process group, the entry point included: it stops its own children and
// exits; this launcher only waits for it. A SIGTERM sent to the launcher alone is passed on.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
