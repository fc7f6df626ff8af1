/** A JSON object of the document: an operation, a response, a schema. */
export type Node = Record<string, unknown>;

/** The document as @fastify/swagger makes it from every route: the Open API's and the admin API's. */
export interface Document {
  openapi: string;
  info: Node;
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Node>>;
  components?: { schemas?: Record<string, Node>; securitySchemes?: Node } & Node;
  security?: unknown[];
  [key: string]: unknown;
}

export const SCHEMA_REF = '#/components/schemas/';

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The component schemas `root` reaches, through `$ref`s and the components they name in turn. */
export function reachedSchemas(root: unknown, schemas: Record<string, unknown>): Set<string> {
  const reached = new Set<string>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) pending.push(...(value as unknown[]));
    if (!isNode(value)) continue;
    for (const [key, inner] of Object.entries(value)) {
      const name = key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF) ? inner.slice(SCHEMA_REF.length) : undefined;
      if (name === undefined) pending.push(inner);
      else if (!reached.has(name)) {
        reached.add(name);
        pending.push(schemas[name]);
      }
    }
  }
  return reached;
}

const ONE_SCHEMA = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];

/** Every subschema of `schema`, itself included, without following `$ref`s (each component is visited on its own). */
export function eachSubschema(schema: unknown, visit: (node: Node) => void): void {
  if (!isNode(schema)) return;
  visit(schema);
  for (const key of ONE_SCHEMA) eachSubschema(schema[key], visit);
  for (const key of SCHEMA_LISTS) if (Array.isArray(schema[key])) for (const inner of schema[key] as unknown[]) eachSubschema(inner, visit);
  for (const key of SCHEMA_MAPS) if (isNode(schema[key])) for (const inner of Object.values(schema[key])) eachSubschema(inner, visit);
}

/** `a`, `b` and `c`, each in backticks. */
export function codeList(values: readonly unknown[]): string {
  const quoted = values.map((value) => `\`${String(value)}\``);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}` : quoted.join('');
}

/**
 * What the document answers may grow within v1 (spec, Versioning 2 and 5): new fields and new enum
 * values. So no answered object is closed (`additionalProperties: false` goes), and each answered
 * enum becomes a string whose known values are listed in `x-extensible-enum` and its description:
 * generators then type it as a string a new value cannot break, where a closed enum makes a
 * generated client refuse the answer. Request bodies stay closed: a key the API does not know is 400.
 */
export function openAnswered(schema: unknown): void {
  eachSubschema(schema, (node) => {
    if (node.additionalProperties === false) delete node.additionalProperties;
    if (!Array.isArray(node.enum) || node.type !== 'string') return;
    const values = node.enum as string[];
    delete node.enum;
    node['x-extensible-enum'] = values;
    const known = `Known values: ${codeList(values)}. Values may be added within v1: treat an unknown one as valid.`;
    node.description = typeof node.description === 'string' ? `${node.description}. ${known}` : known;
  });
}
