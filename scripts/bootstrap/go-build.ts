import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { withLock } from './shared-services.js';
import { say, step } from './progress.js';
import { runCommand } from './run-command.js';

/**
 * `go install` of `packages` (`path@version`) into `dir`, once per machine: nothing to do when each
 * binary is there. A lock file beside `dir` holds the builder's pid, so that two runs (two clones,
 * `npm test` beside `npm run dev`) never build at once: the second waits, then finds the binaries.
 * Progress lines every 30 s, since a build takes minutes. Returns the binaries' paths, by package.
 */
export async function goInstall(dir: string, packages: string[], label: string): Promise<string[]> {
  const binaries = packages.map((name) => join(dir, basename(name.split('@')[0]!)));
  const built = () => binaries.every((binary) => existsSync(binary));
  if (built()) return binaries;
  await withLock(`${dir}.lock`, 'the build', async () => {
    // Built by the run this one waited for.
    if (built()) return;
    await step(`building ${label} with go install into ${dir} (once per machine, minutes)`, async () => {
      const started = Date.now();
      const ticker = setInterval(() => say(`  … still building ${label} (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
      try {
        await runCommand('go', ['install', ...packages], { env: { ...process.env, GOBIN: dir, GOFLAGS: '-mod=mod' } }).catch(
          (error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
            throw new Error(`go is not on PATH: ${label} is built with Go (https://go.dev/dl/), once per machine`);
          },
        );
      } finally {
        clearInterval(ticker);
      }
    });
  });
  return binaries;
}
