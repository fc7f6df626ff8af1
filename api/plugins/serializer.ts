import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';

/**
 * Each schema's writer, kept for the process: a pure function of the schema, and about 1 s of CPU for
 * the whole API, which the test suite builds once per file (docs/capacity.md, "The test suite").
 */
const compiled = new WeakMap<z.ZodType, (data: unknown) => string>();

/**
 * Answers are written by fast-json-stringify from the JSON Schema of each response's zod schema (its
 * output form), compiled once per route and status. Like zod's encoder, it writes only the declared
 * fields, so a column a query adds by mistake still never reaches a client; unlike it, it does not
 * re-check every value of a page, which cost as much as the JSON itself
 * (../../docs/behaviour/api.md). A schema JSON Schema cannot
 * express (a transform), or given in another form, keeps zod's encoder.
 */
export const serializerCompiler: typeof zodSerializerCompiler = (route) => {
  if (!(route.schema instanceof z.ZodType)) return zodSerializerCompiler(route);
  const known = compiled.get(route.schema);
  if (known) return known;
  let jsonSchema: object;
  try {
    jsonSchema = z.toJSONSchema(route.schema, { io: 'output', target: 'draft-7' });
  } catch {
    return zodSerializerCompiler(route);
  }
  const serialize = fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
  compiled.set(route.schema, serialize);
  return serialize;
};
