import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './paths.js';
import { step } from './progress.js';
import { runCommand } from './run-command.js';

/**
 * The Python tools of `npm test` and `npm run fuzz`, pinned, so a run is the same on every machine: the
 * OpenAPI fuzzer, and the client generator the suite tries the public document with
 * (test/api-contract/generated-clients.test.ts), whose dependencies are also those of the clients it writes,
 * and the Standard Webhooks library of the developer site's Python sample (test/developers/webhook-samples.test.ts).
 */
export const PYTHON_TOOLS = { schemathesis: '4.32.5', 'openapi-python-client': '0.29.1', standardwebhooks: '1.1.0' } as const;
const venvDir = join(dataDir, 'venv');
const venvBin = (command: string) => join(venvDir, 'bin', command);
/** The virtual environment's interpreter, which runs the generated Python client. */
export const venvPython = venvBin('python');
export const venvBinDir = join(venvDir, 'bin');
/** The fuzzer's command, once `ensurePythonTools` has run. */
export const schemathesisBin = venvBin('schemathesis');
export const openApiPythonClientBin = venvBin('openapi-python-client');

/**
 * The tools in a Python virtual environment under `.data/venv`, from PyPI. Quick and silent when each
 * pinned version is already there (its `dist-info` folder is the proof pip leaves).
 */
export async function ensurePythonTools(): Promise<void> {
  const installed = installedVersions();
  const tools = Object.entries(PYTHON_TOOLS);
  const missing = tools.filter(([name, version]) => installed.get(normalized(name)) !== version);
  if (missing.length === 0) return;
  const label = missing.map(([name, version]) => `${name} ${version}`).join(', ');
  await step(`installing ${label} into .data/venv (PyPI)`, async () => {
    // Another version, or a venv a killed install left half made: start over rather than upgrade in place.
    // A tool new to the list is installed beside the others.
    const outdated = missing.some(([name]) => installed.has(normalized(name)));
    if (outdated || !existsSync(venvBin('pip'))) {
      rmSync(venvDir, { recursive: true, force: true });
      await runCommand('python3', ['-m', 'venv', venvDir]);
    }
    await runCommand(venvBin('pip'), [
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-input',
      ...tools.map(([name, version]) => `${name}==${version}`),
    ]);
  });
  const after = installedVersions();
  const absent = tools.filter(([name, version]) => after.get(normalized(name)) !== version);
  if (absent.length > 0) throw new Error(`pip did not install ${absent.map(([name, version]) => `${name} ${version}`).join(', ')}`);
}

/** A distribution's name as its `dist-info` folder spells it. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '_');
}

/** Each distribution of the venv (by normalized name) and its version. */
function installedVersions(): Map<string, string> {
  const versions = new Map<string, string>();
  const lib = join(venvDir, 'lib');
  if (!existsSync(venvPython) || !existsSync(lib)) return versions;
  for (const python of readdirSync(lib)) {
    const packages = join(lib, python, 'site-packages');
    if (!existsSync(packages)) continue;
    for (const entry of readdirSync(packages)) {
      const info = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
      if (info) versions.set(normalized(info[1]!), info[2]!);
    }
  }
  return versions;
}
