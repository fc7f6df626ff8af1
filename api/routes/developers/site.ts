import { readFileSync } from 'node:fs';
import type { RateCounter } from '../../../domain/access/index.js';
import { codeBlock, html, type Html } from './html.js';
import { pagePath, type PageLink } from './layout.js';

/** An operation of the Open API as the public document gives it. */
export interface Operation {
  method: string;
  /** Under the API prefix, parameters as `{id}`. */
  path: string;
  permissions: readonly string[];
  counter: RateCounter;
  /** `in:name` of each parameter, the name in lower case: `query:cursor`, `header:idempotency-key`. */
  parameters: ReadonlySet<string>;
}

interface Parameter {
  name?: string;
  in?: string;
  $ref?: string;
}

/** The parts of the public OpenAPI document the site reads. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: Parameter[]; 'x-permissions'?: string[]; 'x-rate-limit-counter'?: RateCounter }>>;
  webhooks?: Record<string, { post?: { description?: string } }>;
  components?: { parameters?: Record<string, Parameter> };
}

/** What every page is written from: the service's address and the public document, the one the reference shows. */
export interface Site {
  baseUrl: string;
  apiPrefix: string;
  referencePage: string;
  documentUrl: string;
  document: OpenApiDocument;
  operations: readonly Operation[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document under `prefix`, its parameters' `$ref`s resolved. */
export function operationsOf(document: OpenApiDocument, prefix: string): Operation[] {
  const resolve = (parameter: Parameter) =>
    parameter.$ref ? (document.components?.parameters?.[parameter.$ref.split('/').pop()!] ?? {}) : parameter;
  return Object.entries(document.paths ?? {})
    .filter(([path]) => path.startsWith(`${prefix}/`))
    .flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path: path.slice(prefix.length),
          permissions: operation['x-permissions'] ?? [],
          counter: operation['x-rate-limit-counter'] ?? 'general',
          parameters: new Set(
            (operation.parameters ?? []).map(resolve).map((parameter) => `${parameter.in}:${parameter.name?.toLowerCase()}`),
          ),
        })),
    );
}

export interface Page extends PageLink {
  render: (site: Site) => Html;
}

/** `GET /orders`: how the site names an operation. */
export const operationName = (operation: Pick<Operation, 'method' | 'path'>) => `${operation.method} ${operation.path}`;

/** Names as inline code: `a`, `b`, `c`; or `a`, `b` and `c` when they are all needed. */
export const codeList = (names: readonly string[], last = ', ') =>
  names.map((name, index) => html`${index === 0 ? '' : index === names.length - 1 ? last : ', '}<code>${name}</code>`);

/** A problem code, linked to its anchor on the errors page. */
export const errorLink = (code: string) => html`<a href="${pagePath('errors')}#${code}"><code>${code}</code></a>`;

/** The operations that take `parameter` in `where` (`query`, `header`), as `GET /orders`. */
export const operationsTaking = (site: Site, where: string, parameter: string) =>
  site.operations.filter((operation) => operation.parameters.has(`${where}:${parameter.toLowerCase()}`)).map(operationName);

/**
 * The samples the site shows: files of examples/developer-site/, which the suite runs against the
 * real API (test/developers/), so no sample on the site can stop working unnoticed.
 */
const SAMPLES = {
  'first-call.sh': 'Shell (curl)',
  'api.ts': 'TypeScript',
  'pagination.ts': 'TypeScript',
  'sync.ts': 'TypeScript',
  'create-once.ts': 'TypeScript',
  'webhook-receiver.ts': 'TypeScript, npm package standardwebhooks',
  'webhook_receiver.py': 'Python, PyPI package standardwebhooks',
  'go/main.go': 'Go, github.com/standard-webhooks/standard-webhooks/libraries/go',
  'go/go.mod': 'Go module',
} as const;
export type SampleFile = keyof typeof SAMPLES;

const SAMPLES_FOLDER = new URL('../../../examples/developer-site/', import.meta.url);
const LANGUAGE_OF_EXTENSION: Record<string, string> = { sh: 'shell', ts: 'typescript', py: 'python', go: 'go', mod: 'text' };

/** A sample file shown whole, named by its file and language. */
export function sample(file: SampleFile): Html {
  const code = readFileSync(new URL(file, SAMPLES_FOLDER), 'utf8');
  return codeBlock(code, `${file} · ${SAMPLES[file]}`, LANGUAGE_OF_EXTENSION[file.split('.').pop()!]!);
}

export const SAMPLE_FILES = Object.keys(SAMPLES) as SampleFile[];
