import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dumpSchema, SCHEMA_COMMAND, SCHEMA_FILE } from '../../scripts/bootstrap/migrate.js';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { testEnv } from '../support/environment.js';

describe('db/schema.sql', () => {
  it('is the schema of the migrated template, as the migrations make it today', async () => {
    const template = testEnv('DATABASE_URL');
    const dumped = await dumpSchema(template);
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed === dumped, staleness(committed, dumped, new URL(template).pathname.slice(1))).toBe(true);
  });

  it('shows one key lookup, authenticate_request, and no longer the retired authenticate_api_key', () => {
    const schema = readFileSync(SCHEMA_FILE, 'utf8');
    expect(schema.match(/^CREATE FUNCTION public\.authenticate_request\(/gm)).toHaveLength(1);
    expect(schema).not.toContain('authenticate_api_key');
  });
});

/** Where the file first differs from the dump, and what to run. */
function staleness(committed: string, dumped: string, template: string): string {
  const [file, database] = [committed.split('\n'), dumped.split('\n')];
  const line = file.findIndex((text, index) => text !== database[index]);
  const at = line === -1 ? database.length : line;
  return [
    `${relative(projectRoot, SCHEMA_FILE)} is stale: run \`${SCHEMA_COMMAND}\` and commit it.`,
    `First difference at line ${at + 1}: the file has ${JSON.stringify(file[at] ?? '(end of file)')}, ` +
      `the migrated database ${JSON.stringify(database[at] ?? '(end of dump)')}.`,
    // The template outlives runs on this clone's cluster; a migration edited after it ran stays as it ran there.
    `When the file is already fresh, this clone's test template is not: drop database ${template} (npm test makes it again).`,
  ].join('\n');
}
