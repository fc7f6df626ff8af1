import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import { Problem } from '../../domain/kernel/index.js';

type Compiler = typeof zodValidatorCompiler;

/**
 * The one validator of every route: before the route's schema, any string (value or object key) in
 * the body, query, params or headers holding U+0000 is 400 `validation-failed` with its path.
 * PostgreSQL text cannot store that character; this rule holds for every field, present and future.
 */
export const validatorCompiler: Compiler = (route) => {
  const validate = zodValidatorCompiler(route);
  return (data) => {
    const path = nulPath(data, []);
    if (path === undefined) return validate(data);
    const where = path.join('.') || (route.httpPart ?? 'body');
    return {
      error: new Problem('validation-failed', 'Text cannot contain the NUL character (U+0000)', {
        errors: [{ path: where, message: 'contains the NUL character (U+0000)' }],
      }),
    };
  };
};

/** The path of the first string holding U+0000 (as a value or a key), or undefined. */
function nulPath(value: unknown, path: string[]): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulPath(item, [...path, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '\\u0000')];
      const found = nulPath(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
