import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { API_PREFIX } from '../api/app.js';
import { EVENT_TYPES } from '../domain/events/index.js';
import { PROBLEMS } from '../domain/kernel/index.js';
import { currentDocument } from './admin-api-types.js';
import { projectRoot } from './bootstrap/paths.js';

/** `@shopflow/client` reads these types (clients/typescript); test/kit checks they are current. */
export const CLIENT_TYPES_FILE = join(projectRoot, 'clients', 'typescript', 'src', 'open-api.generated.ts');

interface Document {
  paths?: Record<string, unknown>;
  servers?: unknown;
}

/**
 * The TypeScript types of the served Open API document (`/api/open/v1/openapi.json`): its paths under
 * the prefix, written relative to it (the client's base URL ends with the prefix), then the event types
 * of the catalogue and the problem codes with their statuses, which the document does not enumerate.
 */
export async function clientTypes(document: unknown): Promise<string> {
  const { servers: _servers, ...whole } = document as Document;
  const paths = Object.entries(whole.paths ?? {})
    .filter(([path]) => path.startsWith(`${API_PREFIX}/`))
    .map(([path, item]) => [path.slice(API_PREFIX.length), item]);
  const ast = await openapiTS({ ...whole, paths: Object.fromEntries(paths) } as OpenAPI3, { alphabetize: true });
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
  writeFileSync(CLIENT_TYPES_FILE, await clientTypes(await currentDocument(`${API_PREFIX}/openapi.json`)));
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
