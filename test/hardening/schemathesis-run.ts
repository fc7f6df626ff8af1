import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dataDir } from '../../scripts/bootstrap/paths.js';
import { schemathesisBin } from '../../scripts/bootstrap/python-tools.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

/** How much a run does: the bounded one of `npm test`, or the long one of `npm run fuzz`. */
export interface FuzzProfile {
  name: 'bounded' | 'full';
  phases: ('examples' | 'coverage' | 'fuzzing' | 'stateful')[];
  maxExamples: number;
  /** Fixed for the bounded run (the same cases on every CI run); the long run draws a new one. */
  seed?: number;
  workers: number;
}

/** A value schemathesis draws from a named pool of real ids (`dictionary`), `probability` of the time. */
export interface Binding {
  dictionary: string;
  probability?: number;
}

export interface FuzzTarget {
  baseUrl: string;
  /** Operation family (the document's first tag) → its bearer keys, used in turn. */
  keys: Record<string, string[]>;
  /** Named pools of ids of the seeded shop. */
  dictionaries: Record<string, string[]>;
  /**
   * Body fields naming a record (`variantId`, `tagIds`…) → their pool. Every phase of schemathesis
   * draws them at random; fuzz_hooks.py puts the pool's ids in the schema-valid cases.
   */
  references: Record<string, string>;
  /** Parameters (`path.id`) bound to a pool for the operations whose path matches `pathRegex`. */
  operationParameters: { pathRegex: string; parameters: Record<string, Binding> }[];
}

export interface FuzzResult {
  requests: number;
  seconds: number;
  /** Check name → failed responses. */
  failuresByCheck: Record<string, number>;
  exitCode: number;
  /** Schemathesis' own account of the failures, for the test's message. */
  output: string;
  reportDir: string;
}

const hooksFile = fileURLToPath(new URL('fuzz_hooks.py', import.meta.url));

/**
 * The settings of a run as schemathesis.toml: every check, the seeded ids, and what the document
 * cannot say (../../docs/behaviour/api.md): NUL in
 * text is refused by one rule of the validator, and a 422 is a refusal of the records' state, not
 * of the request's shape.
 */
function configOf(target: FuzzTarget, profile: FuzzProfile): string {
  // A pool the shop has no rows for (no shipment accepted, say) binds nothing: those fields stay random.
  const pools = Object.fromEntries(Object.entries(target.dictionaries).filter(([, values]) => values.length > 0));
  const bound = (entries: Record<string, Binding>) =>
    Object.fromEntries(Object.entries(entries).filter(([, { dictionary }]) => pools[dictionary]));
  const string = (value: string) => JSON.stringify(value);
  const binding = ({ dictionary, probability = 1 }: Binding) => `{ dictionary = ${string(dictionary)}, probability = ${probability} }`;
  const table = (entries: Record<string, Binding>) =>
    `{ ${Object.entries(entries)
      .map(([name, bound]) => `${string(name)} = ${binding(bound)}`)
      .join(', ')} }`;
  return [
    `hooks = ${string(hooksFile)}`,
    '[generation]',
    'allow-x00 = false',
    `max-examples = ${profile.maxExamples}`,
    '[checks.positive_data_acceptance]',
    'expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]',
    ...Object.entries(pools).flatMap(([name, values]) => [`[dictionaries.${name}]`, `values = [${values.map(string).join(', ')}]`]),
    ...target.operationParameters
      .filter(({ parameters }) => Object.keys(bound(parameters)).length > 0)
      .flatMap(({ pathRegex, parameters }) => [
        '[[operations]]',
        `include-path-regex = ${string(pathRegex)}`,
        `parameters = ${table(bound(parameters))}`,
      ]),
    '',
  ].join('\n');
}

/** Runs schemathesis against the Open API of `target` (its document holds no admin path: that API has its own). */
export async function runSchemathesis(target: FuzzTarget, profile: FuzzProfile): Promise<FuzzResult> {
  const reportDir = join(dataDir, 'fuzz', profile.name);
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  const configFile = join(reportDir, 'schemathesis.toml');
  writeFileSync(configFile, configOf(target, profile));
  const referencesFile = join(reportDir, 'references.json');
  const references = Object.entries(target.references).map(([field, pool]) => [field, target.dictionaries[pool] ?? []]);
  writeFileSync(referencesFile, JSON.stringify(Object.fromEntries(references.filter(([, ids]) => ids!.length > 0))));
  // Every seeded id: the hook keeps them from being deleted, since the pools above name them.
  const seededFile = join(reportDir, 'seeded.json');
  writeFileSync(seededFile, JSON.stringify(Object.values(target.dictionaries).flat()));
  // The family's keys, set by the hook: a negative case that drops `Authorization` must go out without
  // one, which schemathesis' per-operation `headers` would not allow (they are added to every request).
  const keysFile = join(reportDir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify(target.keys));
  const args = [
    '--config-file',
    configFile,
    'run',
    `${target.baseUrl}${OPEN_API_DOCUMENT}`,
    '--url',
    target.baseUrl,
    '--checks',
    'all',
    '--phases',
    profile.phases.join(','),
    '--workers',
    String(profile.workers),
    '--report',
    'ndjson',
    '--report-dir',
    reportDir,
    '--no-color',
    ...(profile.seed === undefined ? [] : ['--seed', String(profile.seed)]),
  ];
  const started = Date.now();
  const outputFile = join(reportDir, 'output.txt');
  const output = createWriteStream(outputFile);
  const child = spawn(schemathesisBin, args, {
    cwd: reportDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SHOPFLOW_FUZZ_REFERENCES: referencesFile,
      SHOPFLOW_FUZZ_SEEDED: seededFile,
      SHOPFLOW_FUZZ_KEYS: keysFile,
    },
  });
  let text = '';
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk: Buffer) => {
      output.write(chunk);
      text += chunk.toString();
    });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
  output.end();
  const seconds = (Date.now() - started) / 1000;
  const report = readdirSync(reportDir).find((name) => name.endsWith('.ndjson'));
  const counts = report ? await countReport(join(reportDir, report)) : { requests: 0, failuresByCheck: {} };
  const failures = text.indexOf('=== FAILURES ===');
  return { ...counts, seconds, exitCode, output: failures >= 0 ? text.slice(failures) : text, reportDir };
}

interface ScenarioFinished {
  recorder?: { interactions?: Record<string, unknown>; checks?: Record<string, { name: string; status: string }[]> };
}

/** Requests made and failed checks, from the NDJSON event stream of the run. */
async function countReport(file: string): Promise<Pick<FuzzResult, 'requests' | 'failuresByCheck'>> {
  let requests = 0;
  const failuresByCheck: Record<string, number> = {};
  for await (const line of createInterface({ input: createReadStream(file) })) {
    const event = JSON.parse(line) as { ScenarioFinished?: ScenarioFinished };
    const recorder = event.ScenarioFinished?.recorder;
    if (!recorder) continue;
    requests += Object.keys(recorder.interactions ?? {}).length;
    for (const check of Object.values(recorder.checks ?? {}).flat())
      if (check.status === 'failure') failuresByCheck[check.name] = (failuresByCheck[check.name] ?? 0) + 1;
  }
  return { requests, failuresByCheck };
}
