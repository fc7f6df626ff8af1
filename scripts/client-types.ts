import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { API_PREFIX } from '../api/app.js';
import { OPEN_API_DOCUMENT } from '../api/routes/open-api.js';
import { EVENT_TYPES } from '../domain/events/index.js';
import { PROBLEMS } from '../domain/kernel/index.js';
import { currentDocument } from './admin-api-types.js';
import { projectRoot } from './bootstrap/paths.js';

/** `@shopflow/client` reads these types (clients/typescript); test/kit checks they are current. */
export const CLIENT_TYPES_FILE = join(projectRoot, 'clients', 'typescript', 'src', 'open-api.generated.ts');

interface Document {
  paths?: Record<string, unknown>;
  servers?: unknown;
  components?: { schemas?: Record<string, unknown> };
}

const SCHEMA_REF = '#/components/schemas/';

/** The schemas the Open API paths use, directly or through other schemas (the document also holds the admin API's). */
function usedSchemas(paths: unknown, schemas: Record<string, unknown>): Record<string, unknown> {
  const used = new Set<string>();
  const pending: unknown[] = [paths];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, inner] of Object.entries(value)) {
      const name = key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF) ? inner.slice(SCHEMA_REF.length) : undefined;
      if (name === undefined) pending.push(inner);
      else if (!used.has(name)) {
        used.add(name);
        pending.push(schemas[name]);
      }
    }
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/**
 * The TypeScript types of the served Open API document (`/docs/json`): its paths under
 * the prefix, written relative to it (the client's base URL ends with the prefix), and the schemas they
 * use, then the event types of the catalogue and the problem codes with their statuses, which the
 * document does not enumerate.
 */
export async function clientTypes(document: unknown): Promise<string> {
  const { servers: _servers, ...whole } = document as Document;
  const paths = Object.entries(whole.paths ?? {})
    .filter(([path]) => path.startsWith(`${API_PREFIX}/`))
    .map(([path, item]) => [path.slice(API_PREFIX.length), item]);
  const openPaths = Object.fromEntries(paths);
  const components = { ...whole.components, schemas: usedSchemas(openPaths, whole.components?.schemas ?? {}) };
  const ast = await openapiTS({ ...whole, paths: openPaths, components } as OpenAPI3, { alphabetize: true });
  const problems = Object.fromEntries(Object.entries(PROBLEMS).map(([code, { status }]) => [code, status]));
  return [
    `${COMMENT_HEADER}${astToString(ast)}`,
    '/** Every event type of the catalogue (spec, Events). */',
    `export const EVENT_TYPES = ${JSON.stringify(EVENT_TYPES)} as const;`,
    '/** Every problem code of the Open API (spec, Errors), with its HTTP status. */',
    `export const PROBLEM_STATUSES = ${JSON.stringify(problems)} as const;`,
    '',
  ].join('\n');
}

// `npm run client:types`: regenerate after changing an Open API route's schemas, an event type or a problem code.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(CLIENT_TYPES_FILE, await clientTypes(await currentDocument(OPEN_API_DOCUMENT)));
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
