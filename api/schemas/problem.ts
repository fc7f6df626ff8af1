import { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../../domain/kernel/index.js';
import { PROBLEM_CONTENT_TYPE } from '../plugins/problems.js';

export const ProblemSchema = z
  .object({
    type: z.string().describe('{base_url}/developers/errors#<code>'),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .loose()
  .meta({ id: 'Problem' });

/** One declared error status: the Problem body as `application/problem+json`, described by the codes it carries. */
export interface ProblemResponse {
  description: string;
  content: Record<typeof PROBLEM_CONTENT_TYPE, { schema: typeof ProblemSchema }>;
}

type ProblemCodes = readonly ProblemCode[];

/**
 * R of the spec: what any request of the Open API may be answered, a malformed query or path
 * parameter (400) included.
 */
export const READ_PROBLEMS = [
  'validation-failed',
  'invalid-api-key',
  'insufficient-permission',
  'shop-suspended',
  'automation-not-active',
  'rate-limited',
  'internal-error',
] as const satisfies ProblemCodes;

/** L of the spec: a paginated list, whose cursor may be refused. */
export const LIST_PROBLEMS = [...READ_PROBLEMS, 'invalid-cursor'] as const satisfies ProblemCodes;

/**
 * W of the spec, for every POST, PATCH and DELETE: a read-only plan refuses writes, and Fastify
 * parses whatever body is sent (too large or not JSON) even where the route takes none.
 */
export const WRITE_PROBLEMS = [
  ...READ_PROBLEMS,
  'subscription-expired',
  'payload-too-large',
  'unsupported-media-type',
] as const satisfies ProblemCodes;

/** Creations honouring `Idempotency-Key` (api/plugins/idempotency.ts); a malformed key is 400. */
export const IDEMPOTENCY_PROBLEMS = ['idempotency-key-in-progress', 'idempotency-key-reused'] as const satisfies ProblemCodes;

/**
 * The admin web app's API (api/plugins/admin-session.ts): a session cookie or 401; an API key is
 * refused there too (api/plugins/authentication.ts); each person's requests count in a one-minute
 * window (429), the login in counters of its own.
 */
export const ADMIN_READ_PROBLEMS = [
  'validation-failed',
  'invalid-api-key',
  'not-logged-in',
  'rate-limited',
  'internal-error',
] as const satisfies ProblemCodes;

/** …and a change needs the session's CSRF token; it may carry a body. */
export const ADMIN_WRITE_PROBLEMS = [
  ...ADMIN_READ_PROBLEMS,
  'csrf-token-invalid',
  'payload-too-large',
  'unsupported-media-type',
] as const satisfies ProblemCodes;

/**
 * The error responses of an operation, from the codes it can answer (sets above and single codes):
 * one response per status of domain/kernel/problems.ts, its description listing the codes.
 */
export function problemResponses(...codes: (ProblemCode | ProblemCodes)[]): Record<number, ProblemResponse> {
  const byStatus = new Map<number, Set<ProblemCode>>();
  for (const code of codes.flat()) {
    const { status } = PROBLEMS[code];
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, carried] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = { description: [...carried].join(', '), content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
  }
  return responses;
}
