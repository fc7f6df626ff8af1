import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, {
  astToString,
  COMMENT_HEADER,
  STRING,
  tsIntersection,
  tsLiteral,
  tsUnion,
  type OpenAPI3,
  type SchemaObject,
} from 'openapi-typescript';
import ts from 'typescript';
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
}

/**
 * An answered enum (`x-extensible-enum`, api/document/schema-walk.ts) as its known values or any
 * other string: `string & {}` keeps the known ones suggested, and a value added within v1 still fits.
 */
function extensibleEnum(schema: SchemaObject) {
  const known = (schema as { 'x-extensible-enum'?: string[] })['x-extensible-enum'];
  return known
    ? tsUnion([...known.map((value) => tsLiteral(value)), tsIntersection([STRING, ts.factory.createTypeLiteralNode([])])])
    : undefined;
}

/**
 * The TypeScript types of the served Open API document (`/docs/json`, the Open API's paths and
 * webhooks only): its paths written relative to the prefix (the client's base URL ends with it), then
 * the event types of the catalogue and the problem codes with their statuses, which the document
 * does not enumerate.
 */
export async function clientTypes(document: unknown): Promise<string> {
  const { servers: _servers, ...whole } = document as Document;
  const paths = Object.fromEntries(Object.entries(whole.paths ?? {}).map(([path, item]) => [path.slice(API_PREFIX.length), item]));
  const ast = await openapiTS({ ...whole, paths } as OpenAPI3, { alphabetize: true, transform: extensibleEnum });
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
