// What every call shares: the address, the key, and a refusal as an error you can branch on.

export interface Api {
  /** The service's address, for example https://shopflow.example. */
  baseUrl: string;
  /** Your key, svc_live_…: from your server's secrets, never from browser code. */
  apiKey: string;
}

/** An `application/problem+json` answer. Branch on `code`; `detail` is for people. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

export class ProblemError extends Error {
  readonly status: number;
  readonly problem: Problem;
  /** The `Retry-After` header: seconds to wait (429, and 409 `idempotency-key-in-progress`). */
  readonly retryAfter: string | null;

  constructor(status: number, problem: Problem, retryAfter: string | null) {
    super(`${status} ${problem.code}: ${problem.detail}`);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** A call to /api/open/v1: the parsed JSON of a 2xx, or a ProblemError. */
export async function call<T>(
  api: Api,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${api.baseUrl}/api/open/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${api.apiKey}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) {
    const problem = (await response.json()) as Problem;
    throw new ProblemError(response.status, problem, response.headers.get('retry-after'));
  }
  return { body: (await response.json()) as T, headers: response.headers };
}
