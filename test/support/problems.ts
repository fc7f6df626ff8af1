import { expect } from 'vitest';
import { PROBLEMS, type ProblemCode } from '../../domain/kernel/problems.js';

/** Asserts an RFC 9457 body: status, code, `type` anchor equal to the code, the stable title. */
export async function expectProblem(response: Response, status: number, code: ProblemCode): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ status, code, title: PROBLEMS[code].title });
  expect(new URL(body.type as string).hash).toBe(`#${code}`);
  expect(typeof body.detail).toBe('string');
  return body;
}

/** A 400 `validation-failed` for an id absent from the shop: `detail` names the path and the id, and there is no `errors[]`. */
export async function expectAbsentReference(response: Response, path: string, id: string): Promise<Record<string, unknown>> {
  const body = await expectProblem(response, 400, 'validation-failed');
  expect(body.detail).toContain(`${path}: no such`);
  expect(body.detail).toContain(id);
  expect(body).not.toHaveProperty('errors');
  return body;
}
