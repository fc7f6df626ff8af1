import { randomBytes } from 'node:crypto';

/**
 * Errors in the Graph API's shape: `{ error: { message, type, code, error_subcode, fbtrace_id } }`.
 * Like the real Graph API, every refusal is HTTP 400 and the adapter must read `code`/`error_subcode`;
 * only platform faults (code 1 and 2) use 5xx. The codes follow the Messenger Platform's where it has
 * one; where it is vague the choice is recorded in docs/behaviour/chat.md.
 */
export class GraphError extends Error {
  readonly httpStatus: number;
  readonly code: number;
  readonly subcode?: number;
  /** Graph marks throttling and outages as transient: the same call may succeed later. */
  readonly isTransient: boolean;

  constructor(httpStatus: number, code: number, message: string, subcode?: number, isTransient = false) {
    super(message);
    this.httpStatus = httpStatus;
    this.code = code;
    this.subcode = subcode;
    this.isTransient = isTransient;
  }

  body(): { error: Record<string, unknown> } {
    return {
      error: {
        message: this.message,
        type: this.code === 1 || this.code === 2 ? 'GraphMethodException' : 'OAuthException',
        code: this.code,
        ...(this.subcode === undefined ? {} : { error_subcode: this.subcode }),
        ...(this.isTransient ? { is_transient: true } : {}),
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    };
  }
}

/** The errors: one constructor a rule, so a code is chosen in one place. */
export const graphErrors = {
  unknownError: () => new GraphError(500, 1, 'An unknown error occurred', undefined, true),
  serviceUnavailable: () => new GraphError(503, 2, 'Service temporarily unavailable', undefined, true),
  missingToken: () => new GraphError(400, 104, 'An access token is required to request this resource.'),
  invalidToken: () => new GraphError(400, 190, 'Invalid OAuth access token - Cannot parse access token'),
  /** `me` without a token naming a page or person (none, or an app's). */
  activeTokenRequired: () => new GraphError(400, 2500, 'An active access token must be used to query information about the current user.'),
  tokenExpired: (expiredAt: Date, now: Date) =>
    new GraphError(
      400,
      190,
      `Error validating access token: Session has expired on ${sessionTime(expiredAt)}. The current time is ${sessionTime(now)}.`,
      463,
    ),
  pageDisconnected: () => new GraphError(400, 190, 'Error validating access token: The user has not authorized application.', 458),
  invalidParameter: (detail: string) => new GraphError(400, 100, `(#100) ${detail}`),
  noSuchObject: (id: string, method: 'get' | 'post') =>
    new GraphError(
      400,
      100,
      `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      33,
    ),
  noMatchingUser: () => new GraphError(400, 100, '(#100) No matching user found', 2018001),
  unknownPath: (path: string) => new GraphError(400, 2500, `Unknown path components: ${path}`),
  outsideWindow: () =>
    new GraphError(
      400,
      10,
      '(#10) This message is sent outside of allowed window. Learn more about the new policy here: https://developers.facebook.com/docs/messenger-platform/policy-overview',
      2018278,
    ),
  userUnavailable: () => new GraphError(400, 551, "(#551) This person isn't available right now.", 1545041),
  pageSendCapReached: () => new GraphError(400, 32, '(#32) Page request limit reached', undefined, true),
  throttled: () => new GraphError(400, 613, '(#613) Calls to this api have exceeded the rate limit.', undefined, true),
  alreadyRepliedPrivately: () => new GraphError(400, 10900, '(#10900) Activity already replied to'),
  privateReplyTooLate: () => new GraphError(400, 10903, "(#10903) This activity can't be replied to"),
  callbackVerificationFailed: (detail: string) => new GraphError(400, 2200, `(#2200) callback verification failed: ${detail}`),
};

/** Graph's wording of a time in token errors: `Tuesday, 27-Oct-26 06:00:00 UTC`. */
function sessionTime(at: Date): string {
  const named = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', ...options }).format(at);
  const day = String(at.getUTCDate()).padStart(2, '0');
  const year = String(at.getUTCFullYear()).slice(2);
  return `${named({ weekday: 'long' })}, ${day}-${named({ month: 'short' })}-${year} ${at.toISOString().slice(11, 19)} UTC`;
}

/** A refusal of a control call (`/_control/...`): plain `{ error: { message } }` with an HTTP status. */
export class ControlError extends Error {
  readonly httpStatus: number;

  constructor(httpStatus: number, message: string) {
    super(message);
    this.httpStatus = httpStatus;
  }
}
