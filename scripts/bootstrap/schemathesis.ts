import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './paths.js';
import { step } from './progress.js';
import { runCommand } from './run-command.js';

/** The OpenAPI fuzzer of `npm test` and `npm run fuzz`; pinned, so a run is the same on every machine. */
export const SCHEMATHESIS_VERSION = '4.32.5';
const venvDir = join(dataDir, 'venv');
/** The fuzzer's command, once `ensureSchemathesis` has run. */
export const schemathesisBin = join(venvDir, 'bin', 'schemathesis');

/**
 * Schemathesis in a Python virtual environment under `.data/venv`, from PyPI. Quick and silent when
 * the pinned version is already there (its `dist-info` folder is the proof pip leaves).
 */
export async function ensureSchemathesis(): Promise<string> {
  if (installedVersion() === SCHEMATHESIS_VERSION) return schemathesisBin;
  await step(`installing Schemathesis ${SCHEMATHESIS_VERSION} into .data/venv (PyPI)`, async () => {
    // Another version, or a venv a killed install left half made: start over rather than upgrade in place.
    rmSync(venvDir, { recursive: true, force: true });
    await runCommand('python3', ['-m', 'venv', venvDir]);
    await runCommand(join(venvDir, 'bin', 'pip'), [
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-input',
      `schemathesis==${SCHEMATHESIS_VERSION}`,
    ]);
  });
  if (installedVersion() !== SCHEMATHESIS_VERSION) throw new Error(`pip did not install schemathesis ${SCHEMATHESIS_VERSION}`);
  return schemathesisBin;
}

function installedVersion(): string | undefined {
  if (!existsSync(schemathesisBin)) return undefined;
  const lib = join(venvDir, 'lib');
  for (const python of readdirSync(lib)) {
    const packages = join(lib, python, 'site-packages');
    const info = existsSync(packages) ? readdirSync(packages).find((name) => /^schemathesis-.*\.dist-info$/.test(name)) : undefined;
    if (info) return /^schemathesis-(.*)\.dist-info$/.exec(info)![1];
  }
  return undefined;
}
