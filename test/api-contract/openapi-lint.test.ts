import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { useSuite } from '../support/suite.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * The public document as a standard OpenAPI linter reads it: Redocly CLI's `recommended` rules, and
 * its example rules made errors, so every example of the document (schemas, request and list
 * bodies, parameters, webhooks) is checked against its schema, additional properties refused.
 */
const redocly = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));
const CONFIG = `extends:
  - recommended
rules:
  no-invalid-schema-examples: error
  no-invalid-media-type-examples: error
  no-invalid-parameter-examples: error
`;
/** The one warning left: the API's licence is not the document's to choose. */
const ACCEPTED_WARNINGS = ['info-license'];

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

const { api } = useSuite({ api: true });
let folder: string;
let document: {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { example?: unknown }> } }>>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
};

beforeAll(async () => {
  folder = temporaryDir('openapi-lint');
  const response = await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  document = JSON.parse(text) as typeof document;
  writeFileSync(join(folder, 'openapi.json'), text);
  writeFileSync(join(folder, 'redocly.yaml'), CONFIG);
});

async function lint(): Promise<LintProblem[]> {
  const run = promisify(execFile);
  const args = [
    'lint',
    '--config',
    join(folder, 'redocly.yaml'),
    '--format',
    'json',
    '--max-problems',
    '1000',
    join(folder, 'openapi.json'),
  ];
  // No telemetry and no update check: the suite talks to nothing outside the machine.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const output = await run(redocly, args, { env, maxBuffer: 64 * 1024 * 1024 }).catch((failure: { stdout?: string; stderr?: string }) => {
    if (!failure.stdout) throw new Error(`redocly did not run: ${failure.stderr}`);
    return { stdout: failure.stdout };
  });
  return (JSON.parse(output.stdout) as { problems: LintProblem[] }).problems;
}

describe('the public OpenAPI document under a standard linter', () => {
  it("passes Redocly's recommended rules, every example valid against its schema", async () => {
    const problems = (await lint())
      .filter((problem) => problem.severity === 'error' || !ACCEPTED_WARNINGS.includes(problem.ruleId))
      .map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(problems).toEqual([]);
  }, 60_000);

  it('has an example for every component schema and every request body', () => {
    const bare = Object.entries(document.components.schemas)
      .filter(([, schema]) => !schema.examples?.length)
      .map(([name]) => name);
    const bodies = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation.requestBody && operation.requestBody.content['application/json']?.example === undefined)
      .map((operation) => operation.operationId);
    expect({ bare, bodies }).toEqual({ bare: [], bodies: [] });
  });
});
