import { randomUUID } from 'node:crypto';
import { call, ProblemError, type Api } from './api.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Worth sending again: the rate limit, the same key still running, a server fault. */
function retryable(error: unknown): boolean {
  // No answer, or not the API's (network, time-out, a proxy's page): the key makes a retry safe.
  if (!(error instanceof ProblemError)) return true;
  return (
    error.status === 429 ||
    error.status >= 500 ||
    error.problem.code === 'idempotency-key-in-progress'
  );
}

/**
 * A creation made once however often it is sent: one `Idempotency-Key` for every attempt,
 * so a retry after a time-out or a 5xx never creates a second record. Waits what
 * `Retry-After` says (429, and 409 `idempotency-key-in-progress`), otherwise 1 s, 2 s, 4 s…
 */
export async function createOnce<T>(
  api: Api,
  path: string,
  body: unknown,
  idempotencyKey: string = randomUUID(),
  maxAttempts = 5,
): Promise<{ created: T; replayed: boolean }> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { body: created, headers } = await call<T>(api, 'POST', path, {
        body,
        headers: { 'idempotency-key': idempotencyKey },
      });
      // true when this answer is the stored outcome of an earlier attempt.
      return { created, replayed: headers.get('idempotent-replayed') === 'true' };
    } catch (error) {
      if (!retryable(error) || attempt === maxAttempts) throw error;
      const retryAfter = error instanceof ProblemError ? Number(error.retryAfter) : NaN;
      await sleep(retryAfter > 0 ? retryAfter * 1000 : 2 ** (attempt - 1) * 1000);
    }
  }
}
