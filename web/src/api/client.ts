import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './admin-api.generated';

/** The admin API's shapes, generated from its OpenAPI document (`npm run web:types`). */
export type Schemas = components['schemas'];

/** The JSON an operation answers with `status`. */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [status in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** The JSON body an operation takes. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

interface ProblemBody {
  title?: string;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
}

/** A refusal of the admin API, from its RFC 9457 problem body. */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: { path: string; message: string }[];
  /** The code-specific members, such as `usedBy` and `uses` of a removal refused while in use. */
  readonly extra: Record<string, unknown>;

  constructor(status: number, body: unknown) {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as ProblemBody & Record<string, unknown>;
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
    this.status = status;
    this.code = problem.code ?? 'unknown';
    this.errors = problem.errors ?? [];
    this.extra = problem;
  }
}

/** The server could not be reached at all (the browser's bare "Failed to fetch"): the screens offer a retry. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('the server cannot be reached', { cause });
  }
}

let csrfToken: string | null = null;

/** Every change carries the session's CSRF token (api/plugins/admin-session.ts). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const withCsrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && request.method !== 'GET') request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};

/** The typed client of the admin API (same origin: the API serves the app, or Vite proxies to it). */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(withCsrf);

/** The answer's data, or its problem thrown (a NetworkError when there was no answer). */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call.catch((cause: unknown) => {
    throw new NetworkError(cause);
  });
  if (!response.ok) throw new ProblemError(response.status, error);
  return data as T;
}
