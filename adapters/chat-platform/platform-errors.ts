import { Problem, type ProblemCode } from '../../domain/kernel/index.js';

/**
 * What a refusal or failure of the chat platform means to the caller, which branches on `kind`:
 * - `window-closed`: the messaging window has passed (10 / 2018278); only the customer can reopen it.
 * - `page-not-connected`: the platform refuses the page token (190; 104 when there is none to send).
 * - `not-replyable`: this recipient cannot be answered now: the person is unavailable (551), the
 *   comment was already answered privately (10900) or is too old (10903), the page-scoped id or the
 *   comment no longer exists (100 / 2018001, 100 / 33).
 * - `unavailable`: throttled (613, 32, 4, 17), a platform fault (codes 1, 2, any transient error,
 *   HTTP 5xx), a time-out or a network error: try again later.
 * - `invalid`: any other refusal of the request (100): it must change before it can succeed.
 */
export type ChatPlatformErrorKind = 'window-closed' | 'page-not-connected' | 'not-replyable' | 'unavailable' | 'invalid';

export class ChatPlatformError extends Error {
  readonly kind: ChatPlatformErrorKind;
  readonly details: {
    httpStatus?: number;
    code?: number;
    subcode?: number;
    /** No answer came after the request was sent (time-out, connection closed): the platform may have done it. */
    outcomeUnknown?: boolean;
  };

  constructor(
    kind: ChatPlatformErrorKind,
    message: string,
    details: {
      httpStatus?: number;
      code?: number;
      subcode?: number;
      /** No answer came after the request was sent (time-out, connection closed): the platform may have done it. */
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(message);
    this.kind = kind;
    this.details = details;
    this.name = 'ChatPlatformError';
  }
}

/** The Graph error body: `{ error: { message, type, code, error_subcode, is_transient, fbtrace_id } }`. */
export interface GraphErrorBody {
  message?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
}

const THROTTLING_CODES = new Set([4, 17, 32, 613]);
const PLATFORM_FAULT_CODES = new Set([1, 2]);
const NOT_REPLYABLE_CODES = new Set([551, 10900, 10903]);
const GONE_SUBCODES = new Set([33, 2018001]);

/** The kind of a Graph refusal, from its HTTP status and error body (Graph answers refusals with 400 and a `code`). */
export function classifyGraphError(httpStatus: number, error: GraphErrorBody | undefined): ChatPlatformErrorKind {
  const code = error?.code;
  if (httpStatus >= 500 || code === undefined || PLATFORM_FAULT_CODES.has(code) || THROTTLING_CODES.has(code) || error?.is_transient)
    return 'unavailable';
  if (code === 10 && error?.error_subcode === 2018278) return 'window-closed';
  if (code === 190 || code === 104) return 'page-not-connected';
  if (NOT_REPLYABLE_CODES.has(code) || (code === 100 && GONE_SUBCODES.has(error?.error_subcode ?? 0))) return 'not-replyable';
  return 'invalid';
}

const PROBLEM_OF_KIND: Record<ChatPlatformErrorKind, ProblemCode> = {
  'window-closed': 'messaging-window-closed',
  'page-not-connected': 'page-not-connected',
  'not-replyable': 'conversation-not-replyable',
  unavailable: 'channel-unavailable',
  invalid: 'validation-failed',
};

/** The Open API's answer to a platform failure (spec, Errors); the platform's own words stay out of it. */
export function problemForPlatformError(error: ChatPlatformError): Problem {
  const detail: Record<ChatPlatformErrorKind, string> = {
    'window-closed': 'the messaging window has passed; the page can write again once the customer does',
    'page-not-connected': "the chat platform no longer accepts this page's connection",
    'not-replyable': 'the chat platform does not accept a reply to this conversation or comment now',
    unavailable: 'the chat platform did not complete the request; nothing was recorded as sent',
    invalid: 'the chat platform refused the request as given',
  };
  return new Problem(PROBLEM_OF_KIND[error.kind], detail[error.kind]);
}
