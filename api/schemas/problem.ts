import { z } from 'zod';

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

/** The `R` error set of the spec, for the OpenAPI document. */
export const problemResponses = {
  401: ProblemSchema,
  403: ProblemSchema,
  429: ProblemSchema,
  500: ProblemSchema,
} as const;
