import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { Problem, type FieldError, type ProblemCode } from '../../domain/kernel/index.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemBody(problem: Problem, baseUrl: string): ProblemBody {
  return {
    type: `${baseUrl}/developers/errors#${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    ...(problem.options.errors ? { errors: problem.options.errors } : {}),
    ...problem.options.extra,
  };
}

/** The one place a failure becomes an RFC 9457 body: domain problems, framework errors, unknown routes, crashes. */
export const problemsPlugin = fp<{ baseUrl: string }>(async (app, { baseUrl }) => {
  const send = (reply: FastifyReply, problem: Problem) =>
    reply
      .status(problem.status)
      .headers(problem.options.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .send(problemBody(problem, baseUrl));

  app.setNotFoundHandler((request, reply) =>
    send(reply, new Problem('not-found', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = toProblem(error, request);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return send(reply, problem);
  });
});

function toProblem(error: FastifyError, request: FastifyRequest): Problem {
  if (error instanceof Problem) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const errors = error.validation.map((issue) => ({
      path: issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || (error.validationContext ?? 'body'),
      message: issue.message ?? 'invalid',
    }));
    return new Problem('validation-failed', `The request ${error.validationContext ?? 'body'} is invalid`, { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem(
        'unsupported-media-type',
        `Send the body as JSON with Content-Type: application/json (got ${request.headers['content-type'] ?? 'none'})`,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('payload-too-large', `The body exceeds ${request.routeOptions.bodyLimit ?? 1_048_576} bytes`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Problem('validation-failed', 'The body is empty but Content-Type says JSON');
    // PostgreSQL text cannot hold U+0000 (22021, 22P05 in JSON): the request's value, not a server fault.
    case '22021':
    case '22P05':
      return new Problem('validation-failed', 'Text cannot contain the NUL character (U+0000)');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new Problem('validation-failed', 'The body is not well-formed JSON');
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return new Problem('not-found', 'Not found');
  if (status === 413) return new Problem('payload-too-large', 'The body is too large');
  if (status === 415) return new Problem('unsupported-media-type', 'Unsupported media type');
  if (status >= 400 && status < 500) return new Problem('validation-failed', error.message);
  return new Problem('internal-error', 'The server failed to handle the request; retry with back-off (use Idempotency-Key on creations)');
}
