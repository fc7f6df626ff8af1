import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './paths.js';
import { step } from './progress.js';
import { runCommand } from './run-command.js';
import { withLock } from './shared-services.js';

/**
 * The Python tools of `npm test` and `npm run fuzz`, pinned, so a run is the same on every machine: the
 * OpenAPI fuzzer, and the client generator the suite tries the public document with
 * (test/api-contract/generated-clients.test.ts), whose dependencies are also those of the clients it writes,
 * and the Standard Webhooks library of the developer site's Python sample (test/developers/webhook-samples.test.ts).
 */
export const PYTHON_TOOLS = { schemathesis: '4.32.5', 'openapi-python-client': '0.29.1', standardwebhooks: '1.1.0' } as const;
/**
 * One venv per set of pinned versions, shared by every clone of this machine (a fresh clone then
 * installs nothing: 41 s of pip otherwise); the clones only read it.
 */
const venvDir = join(cacheDir, 'python', `venv-${createHash('sha256').update(JSON.stringify(PYTHON_TOOLS)).digest('hex').slice(0, 12)}`);
const venvBin = (command: string) => join(venvDir, 'bin', command);
/** The virtual environment's interpreter, which runs the generated Python client. */
export const venvPython = venvBin('python');
export const venvBinDir = join(venvDir, 'bin');
/** The fuzzer's command, once `ensurePythonTools` has run. */
export const schemathesisBin = venvBin('schemathesis');
export const openApiPythonClientBin = venvBin('openapi-python-client');

/**
 * The tools in a Python virtual environment of this machine's cache, from PyPI, under a lock (two
 * runs never install at once). Quick and silent when each pinned version is already there (its
 * `dist-info` folder is the proof pip leaves).
 */
export async function ensurePythonTools(): Promise<void> {
  const tools = Object.entries(PYTHON_TOOLS);
  const missing = () => {
    const installed = installedVersions();
    return tools.filter(([name, version]) => installed.get(normalized(name)) !== version);
  };
  if (missing().length === 0) return;
  await withLock(`${venvDir}.lock`, 'the Python tools', async () => {
    const label = missing()
      .map(([name, version]) => `${name} ${version}`)
      .join(', ');
    // Installed by the run this one waited for.
    if (!label) return;
    await step(`installing ${label} into ${venvDir} (PyPI, once per machine)`, async () => {
      // A venv a killed install left half made: start over.
      rmSync(venvDir, { recursive: true, force: true });
      await runCommand('python3', ['-m', 'venv', venvDir]);
      await runCommand(venvBin('pip'), [
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-input',
        ...tools.map(([name, version]) => `${name}==${version}`),
      ]);
    });
  });
  const absent = missing();
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
