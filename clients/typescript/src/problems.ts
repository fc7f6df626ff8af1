import type { components, PROBLEM_STATUSES } from './open-api.generated.js';

/** An error body of the Open API (RFC 9457), as the served document declares it. */
export type ProblemBody = components['schemas']['Problem'];
/** Every code the API declares today; a code added later is still a `string` and still has its status group. */
export type ProblemCode = keyof typeof PROBLEM_STATUSES;

/**
 * What to do about an error, by HTTP status (spec, Errors: Groups): a code this kit does not know yet
 * still falls into the group of its status.
 */
export type ProblemGroup =
  | 'invalid-request' // 400, 405, 413, 415, 422: change the request
  | 'access' // 401, 403: key or permission; never retry in a tight loop
  | 'payment-required' // 402: wait for the shop to renew
  | 'not-found' // 404
  | 'conflict' // 409: state conflict or an earlier attempt still running
  | 'rate-limited' // 429: wait for Retry-After
  | 'server' // 5xx: retried with back-off by the client
  | 'other';

export function problemGroup(status: number): ProblemGroup {
  if (status >= 500) return 'server';
  switch (status) {
    case 400:
    case 405:
    case 413:
    case 415:
    case 422:
      return 'invalid-request';
    case 401:
    case 403:
      return 'access';
    case 402:
      return 'payment-required';
    case 404:
      return 'not-found';
    case 409:
      return 'conflict';
    case 429:
      return 'rate-limited';
    default:
      return 'other';
  }
}

/** A refused request. Branch on `code` (or on `group` for codes added after this kit was built), never on `title` or `detail`. */
export class ShopflowProblem extends Error {
  override readonly name = 'ShopflowProblem';
  readonly status: number;
  readonly code: ProblemCode | (string & {});
  readonly group: ProblemGroup;
  readonly detail: string;
  readonly errors: { path: string; message: string }[];
  /** The whole body, unknown fields included (for example `matchKeys` of `match-key-taken`). */
  readonly body: ProblemBody;

  constructor(body: ProblemBody) {
    super(`${body.status} ${body.code}: ${body.detail}`);
    this.status = body.status;
    this.code = body.code;
    this.group = problemGroup(body.status);
    this.detail = body.detail;
    this.errors = body.errors ?? [];
    this.body = body;
  }

  /** The problem of a refused response; a body that is not a problem (a proxy's HTML page) gets a code from its status. */
  static async from(response: Response): Promise<ShopflowProblem> {
    const text = await response.text();
    try {
      const body = JSON.parse(text) as Partial<ProblemBody>;
      if (typeof body.code === 'string') return new ShopflowProblem({ ...body, status: response.status } as ProblemBody);
    } catch {
      // Not JSON: described below from the status.
    }
    const code = response.status >= 500 ? 'internal-error' : `http-${response.status}`;
    return new ShopflowProblem({
      type: 'about:blank',
      title: response.statusText,
      status: response.status,
      code,
      detail: text.slice(0, 500),
    });
  }
}

export function isProblem(error: unknown, code?: ProblemCode): error is ShopflowProblem {
  return error instanceof ShopflowProblem && (code === undefined || error.code === code);
}
