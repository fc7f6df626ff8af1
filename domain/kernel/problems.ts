/** Every error code of the Open API (spec, Errors), with its HTTP status and stable title. */
export const PROBLEMS = {
  'validation-failed': { status: 400, title: 'Validation failed' },
  'invalid-cursor': { status: 400, title: 'Invalid cursor' },
  'api-key-not-accepted': { status: 400, title: 'API key not accepted' },
  'invalid-api-key': { status: 401, title: 'Invalid API key' },
  'subscription-expired': { status: 402, title: 'Subscription expired' },
  'insufficient-permission': { status: 403, title: 'Insufficient permission' },
  'shop-suspended': { status: 403, title: 'Shop suspended' },
  'automation-not-active': { status: 403, title: 'Automation not active' },
  'not-found': { status: 404, title: 'Not found' },
  // A known path asked with a method it does not have (api/plugins/method-not-allowed.ts), with `Allow`.
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'idempotency-key-in-progress': { status: 409, title: 'Idempotency key in progress' },
  'duplicate-code': { status: 409, title: 'Duplicate code' },
  'variant-combo-duplicate': { status: 409, title: 'Variant combination duplicate' },
  'variant-keyword-taken': { status: 409, title: 'Variant keyword taken' },
  'match-key-taken': { status: 409, title: 'Match key taken' },
  'order-has-live-shipment': { status: 409, title: 'Order has a live shipment' },
  'shipment-not-cancellable': { status: 409, title: 'Shipment not cancellable' },
  'document-already-posted': { status: 409, title: 'Document already posted' },
  // A shop already holds as many of a kind as one shop may (domain/kernel/shop-caps.ts).
  'limit-reached': { status: 409, title: 'Limit reached' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency key reused' },
  'order-status-not-allowed': { status: 422, title: 'Order status not allowed' },
  'insufficient-stock': { status: 422, title: 'Insufficient stock' },
  'variant-removed': { status: 422, title: 'Variant removed' },
  'customer-blocked': { status: 422, title: 'Customer blocked' },
  'messaging-window-closed': { status: 422, title: 'Messaging window closed' },
  'page-not-connected': { status: 422, title: 'Page not connected' },
  'conversation-not-replyable': { status: 422, title: 'Conversation not replyable' },
  'rate-limited': { status: 429, title: 'Rate limited' },
  // The admin web app's own API (session-authenticated), not part of the Open API.
  'not-logged-in': { status: 401, title: 'Not logged in' },
  'invalid-credentials': { status: 401, title: 'Invalid credentials' },
  'csrf-token-invalid': { status: 403, title: 'CSRF token invalid' },
  // The chat platform's inbound webhook (`POST /platform/chat/webhook`), not part of the Open API.
  'invalid-signature': { status: 401, title: 'Invalid signature' },
  // Carrier callbacks (`POST /platform/carriers/callbacks/{secret}`), not part of the Open API: the carrier calls again.
  'callback-not-recorded': { status: 503, title: 'Callback not recorded' },
  'internal-error': { status: 500, title: 'Internal error' },
  'carrier-unavailable': { status: 503, title: 'Carrier unavailable' },
  'channel-unavailable': { status: 503, title: 'Channel unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface FieldError {
  /** Dotted path into the request, for example `lines.0.quantity`. */
  path: string;
  message: string;
}

/**
 * A refusal the API turns into an `application/problem+json` body. Domain code throws it;
 * `extra` carries code-specific members such as `matchKeys`.
 */
export class Problem extends Error {
  readonly status: number;
  readonly title: string;

  readonly code: ProblemCode;
  readonly detail: string;
  readonly options: { errors?: FieldError[]; extra?: Record<string, unknown>; headers?: Record<string, string> };

  constructor(
    code: ProblemCode,
    detail: string,
    options: { errors?: FieldError[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.code = code;
    this.detail = detail;
    this.options = options;
    this.status = PROBLEMS[code].status;
    this.title = PROBLEMS[code].title;
  }
}

/** An id the request sends in `path` that names no `noun` of the shop (or one of another shop, which row-level security hides). */
export interface AbsentReference {
  path: string;
  noun: string;
  id: string;
}

/** `lines.0.variantId: no such variant in this shop (3f2…)`, joined with `; `. */
export function describeAbsent(references: readonly AbsentReference[]): string {
  return references.map(({ path, noun, id }) => `${path}: no such ${noun} in this shop (${id})`).join('; ');
}

/**
 * 400 `validation-failed` when any reference is absent: a business rejection, not the shape of a
 * field, so `detail` only and no `errors[]` (spec, Errors;
 * docs/behaviour/api.md).
 */
export function refuseAbsent(references: readonly AbsentReference[]): void {
  if (references.length > 0) throw new Problem('validation-failed', describeAbsent(references));
}
