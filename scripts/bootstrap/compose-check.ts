import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, projectRoot } from './paths.js';
import { step } from './progress.js';
import { runCommand } from './run-command.js';
import { withLock } from './shared-services.js';

const SOURCE = join(projectRoot, 'deploy', 'compose-check');

/**
 * The `compose-check` binary (deploy/compose-check: `docker compose config` without a Docker engine),
 * built with Go into the machine's cache once per version of its source; its path.
 */
export async function composeCheck(): Promise<string> {
  const version = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) version.update(readFileSync(join(SOURCE, file)));
  const binary = join(cacheDir, `compose-check-${version.digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  await withLock(`${binary}.lock`, 'the build', async () => {
    if (existsSync(binary)) return;
    await step(`building compose-check with Go into ${binary} (once per machine)`, () =>
      runCommand('go', ['build', '-o', binary, '.'], { cwd: SOURCE, env: { ...process.env, GOFLAGS: '-mod=mod' } }),
    );
  });
  return binary;
}
