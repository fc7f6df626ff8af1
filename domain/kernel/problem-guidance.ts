import type { ProblemCode } from './problems.js';

export interface ProblemGuidance {
  meaning: string;
  action: string;
  /** Set for a code no operation of the Open API answers: the endpoints that do. */
  outside?: string;
}

/**
 * What each problem code means and what the caller does about it: the developer site's errors page,
 * one anchor per code at the problem's `type` address. Keyed by every problem code, so a
 * code added to PROBLEMS without its guidance does not compile. Text may hold `inline code`.
 */
export const PROBLEM_GUIDANCE: Record<ProblemCode, ProblemGuidance> = {
  'validation-failed': {
    meaning:
      'A body, query or path parameter is invalid, or well-formed but unusable (an id that names no record of the shop). When the fault is tied to fields, `errors[]` lists each with its `path` (for example `lines.0.quantity`) and a `message`; a business rejection has only `detail`.',
    action: 'Fix the request and send it again; repeating it unchanged gives the same answer.',
  },
  'invalid-cursor': {
    meaning: 'The `cursor` is malformed, was not returned by this API, or is sent with other parameters than the page it came from.',
    action: 'Restart the pass from the first page (no `cursor`). Never build or store a cursor: keep your `updatedAt` mark instead.',
  },
  'api-key-not-accepted': {
    meaning: 'An API key was sent to a path meant for user sessions (logout, push-notification registration).',
    action: 'Do not call these paths with a key: they belong to the shop staff’s own apps.',
  },
  'invalid-api-key': {
    meaning: 'The `Authorization` header is missing or malformed, or the key is unknown, revoked or expired (after a rotation’s overlap).',
    action:
      'Send `Authorization: Bearer svc_live_…` with a live key. Do not retry in a loop: ask the shop for a new key. Requests with a bad key still count against a rate limit of your IP address.',
  },
  'subscription-expired': {
    meaning: 'The shop’s plan has expired: the key is read-only. `GET /shop` says `readOnly: true`.',
    action: 'Keep reading if you need to; hold writes until the shop renews its plan, then send them again.',
  },
  'insufficient-permission': {
    meaning:
      'The key’s application lacks the permission of the path, or a field-level extra permission (a price off the list, discounts, payments, reassigning the handler, cancelling a shipped order, new product attributes).',
    action:
      '`detail` names what is missing. Ask the shop administrator to add it to the application, or leave out the fields that need it. Do not retry unchanged.',
  },
  'shop-suspended': {
    meaning: 'The shop is suspended: every request is refused.',
    action: 'Stop calling and tell the shop; nothing on your side changes it.',
  },
  'automation-not-active': {
    meaning: 'The shop’s plan does not include the automation feature that the API belongs to.',
    action: 'The shop must change its plan; retrying does not help.',
  },
  'not-found': {
    meaning:
      'No such record or path for this key. Deliberately the same answer for a record that does not exist, a record of another shop, and a chat page outside the key’s pages.',
    action: 'Check the id and the path. A record you saw before may have been deleted: sync with `includeDeleted=true` to see deletions.',
  },
  'method-not-allowed': {
    meaning: 'The path exists but not with this HTTP method. The `Allow` header lists the methods it takes.',
    action: 'Use one of the methods in `Allow`, as the reference shows.',
  },
  conflict: {
    meaning:
      'The operation conflicts with the record’s current state, for example a customer address identical to one the customer already has.',
    action: 'Read the record again, then decide whether the request is still needed; `detail` says what conflicts.',
  },
  'idempotency-key-in-progress': {
    meaning: 'An earlier request with the same `Idempotency-Key` is still running. Answered at once with `Retry-After: 1`.',
    action: 'Wait `Retry-After` seconds and send the identical request with the same key: you get its outcome, not a second write.',
  },
  'duplicate-code': {
    meaning: 'A code you chose (an order code, a product code) already exists in the shop.',
    action: 'Choose another code, or leave it empty where the API generates one.',
  },
  'variant-combo-duplicate': {
    meaning:
      'Two variants of the product would share an attribute combination, counting stored variants the request does not mention. `detail` lists the combinations.',
    action: 'Give each variant its own combination of attribute values.',
  },
  'variant-keyword-taken': {
    meaning:
      'An order-closing keyword belongs to another variant, or appears twice in the request. Compared case-insensitively (`A12 M` and `A12-M` differ). `detail` names each keyword and its holder.',
    action: 'Choose other keywords, or first remove them from the variant holding them.',
  },
  'match-key-taken': {
    meaning:
      'Product codes, variant codes and keywords share one registry of match keys in the shop, and a key of the request belongs to another product or variant. The body’s `matchKeys` lists each key, its source and the product holding it.',
    action:
      'Change the clashing codes or keywords. A keyword equal to its own variant’s code, or a variant code equal to its own product’s code, is allowed.',
  },
  'order-has-live-shipment': {
    meaning: 'The order has a shipment that has not ended, so its goods cannot be edited.',
    action: 'Cancel the shipment first (`POST /shipments/{id}/cancel`) or wait for it to end, then edit the order.',
  },
  'shipment-not-cancellable': {
    meaning: 'The shipment has ended (delivered, returned, cancelled, lost…): it can no longer be cancelled. `detail` gives its status.',
    action: 'Nothing to retry. Read the shipment to see how it ended.',
  },
  'document-already-posted': {
    meaning: 'The inventory document is already posted: it cannot be posted again or edited.',
    action: 'Create a new document for any further stock movement.',
  },
  'limit-reached': {
    meaning: 'The shop already holds as many of this kind of record (flows, chat pages, warehouses, tags…) as one shop may.',
    outside: 'the admin web app’s API',
    action: 'Remove one you no longer need. The body’s `limit` and `detail` give the cap.',
  },
  'payload-too-large': {
    meaning: 'The request body is larger than the API accepts.',
    action: 'Send less in one request, for example fewer lines or variants at a time.',
  },
  'unsupported-media-type': {
    meaning: 'The body is not JSON.',
    action: 'Send the body as JSON with `Content-Type: application/json`.',
  },
  'idempotency-key-reused': {
    meaning: 'The `Idempotency-Key` was already used, within its window, with a different request body.',
    action: 'Use a new key for each new operation; reuse a key only to repeat the identical request.',
  },
  'order-status-not-allowed': {
    meaning: 'The order cannot move to this status from its current one under the shop’s transition matrix.',
    action: 'Read the order’s current `status` and choose a target the matrix allows.',
  },
  'insufficient-stock': {
    meaning: 'There is not enough stock of a variant in the warehouse for this order or shipment.',
    action: 'Lower the quantity, choose another warehouse, or wait for stock to arrive.',
  },
  'variant-removed': {
    meaning: 'A variant named in the request was removed from its product.',
    action: 'Read the product again and use one of its current variants.',
  },
  'customer-blocked': {
    meaning: 'The customer is blocked by the shop, and this operation is refused for blocked customers.',
    action: 'Leave the customer out, or ask the shop to unblock them.',
  },
  'messaging-window-closed': {
    meaning: 'The chat platform’s messaging window (for example 24 hours after the customer’s last message) has passed.',
    action: 'You can send again once the customer writes. A conversation’s `canReply` tells you before you try.',
  },
  'page-not-connected': {
    meaning: 'The conversation’s chat page is no longer connected to the shop.',
    action: 'The shop must reconnect the page; retrying does not help.',
  },
  'conversation-not-replyable': {
    meaning: 'The conversation cannot be answered through the API in its current state.',
    action: 'Check `canReply` on the conversation; answer from the shop’s chat screen if needed.',
  },
  'rate-limited': {
    meaning: 'The key (or, for shipments, the shop) has used up the requests of its counter in the current one-minute window.',
    action:
      'Wait the seconds the `Retry-After` header gives, then send again. Spread your calls using `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
  },
  'not-logged-in': {
    meaning: 'No valid staff session.',
    outside: 'the admin web app’s API',
    action: 'Log in again in the admin web app.',
  },
  'invalid-credentials': {
    meaning: 'The e-mail or the password is wrong.',
    outside: 'the admin web app’s API',
    action: 'Check them and log in again.',
  },
  'csrf-token-invalid': {
    meaning: 'A change was sent without the session’s `X-CSRF-Token`.',
    outside: 'the admin web app’s API',
    action: 'Reload the admin web app and try again.',
  },
  'invalid-signature': {
    meaning: 'The chat platform’s signature of a webhook call does not match.',
    outside: 'the chat platform’s webhook',
    action: 'The platform signs with the app secret; check that the shop’s app secret is the platform’s.',
  },
  'callback-not-recorded': {
    meaning: 'A carrier’s status update could not be recorded now.',
    outside: 'carrier callbacks',
    action: 'The carrier sends the callback again; nothing else to do.',
  },
  'internal-error': {
    meaning: 'A fault on our side. Nothing about it is in the body.',
    action: 'Retry with growing back-off. Send writes with an `Idempotency-Key` so that a retry never creates a duplicate.',
  },
  'carrier-unavailable': {
    meaning:
      'The carrier could not be reached (network, a fault at the carrier, or the shop’s carrier connection is unusable): the shipment was not created or cancelled.',
    action:
      'Before retrying a creation, read `GET /shipments?orderId=<order id>` to see whether a shipment was left behind; then retry with back-off.',
  },
  'channel-unavailable': {
    meaning:
      'The chat channel is not answering for now (the page is rate-limited by the platform, a channel fault, the network): the message, private reply, or hiding of a comment was not done. Not your key’s quota.',
    action: 'Retry later with back-off, with the same `Idempotency-Key` for sends.',
  },
};
