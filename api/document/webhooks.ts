import { EVENT_READ_PERMISSIONS, EVENT_TYPES, type EventType } from '../../domain/events/index.js';
import { ATTEMPT_TIMEOUT_MS } from '../../domain/flows/index.js';
import { codeList, type Node } from './schema-walk.js';

/**
 * The webhooks of the document (OpenAPI 3.1 `webhooks`): one per event type of the catalogue
 * (domain/events, EVENT_READ_PERMISSIONS), each a POST of the envelope that `envelope()` builds,
 * with the resource of its family in `data`, and the Standard Webhooks headers.
 */

type Family = EventType extends `${infer F}.${string}` ? F : never;

/** The component each family carries in `data`: the resource as its `GET` answers it (spec, Events: Catalogue). */
const DATA_OF_FAMILY: Record<Family, string> = {
  order: 'Order',
  product: 'Product',
  inventory: 'StockRow',
  customer: 'Customer',
  shipment: 'Shipment',
  message: 'ChatMessage',
};

/** When each event is emitted (spec, Events: Catalogue). */
const WHEN: Record<EventType, string> = {
  'order.created': 'An order was created',
  'order.updated': "A field of the order's `data` was edited",
  'order.status_changed': "The order's status changed",
  'order.deleted': 'The order was deleted (`data.status` is `deleted` and `data.deletedAt` is set)',
  'product.created': 'A product was created',
  'product.updated': "A field of the product's `data` was edited (variants and images included)",
  'product.deleted': 'The product was deleted (`data.deletedAt` is set)',
  'inventory.stock_changed': 'The quantity or the in-transit amount of one variant in one warehouse changed',
  'customer.created': 'A customer was created',
  'customer.updated': "A field of the customer's `data` was edited (contacts and addresses included)",
  'customer.deleted': 'The customer was deleted (`data.deletedAt` is set)',
  'shipment.created': 'A shipment was created',
  'shipment.status_changed':
    "The shipment's `status` changed, or the return leg of a partially delivered shipment took a new step (`changes.fields` is `events`, with no `changes.status`)",
  'message.received': 'A customer messaged a chat page of the flow',
  'message.sent': 'The shop sent a message to a customer on a chat page of the flow',
};

/** Update events say what changed (spec, Events: Envelope); the others carry no `changes`. */
export function hasChanges(type: EventType): boolean {
  return type.endsWith('.updated') || type.endsWith('.status_changed');
}

const pascal = (type: string) => type.replace(/(?:^|[._])(\w)/g, (_, letter: string) => letter.toUpperCase());
/** `order.status_changed` → `OrderStatusChangedEvent`. */
export const eventSchemaName = (type: EventType) => `${pascal(type)}Event`;

function envelopeSchema(type: EventType): Node {
  const changes = hasChanges(type);
  return {
    type: 'object',
    description: `The envelope of \`${type}\`: ${WHEN[type]}.`,
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_',
        maxLength: 68,
        description:
          'The event id: the same in every flow that receives the event, and not the delivery id `webhook-id`. Opaque: not a UUID.',
      },
      type: { type: 'string', const: type },
      apiVersion: { type: 'string', description: 'Currently `v1`.' },
      createdAt: {
        type: 'string',
        format: 'date-time',
        description: 'When the event occurred: order events by it, as deliveries arrive in any order.',
      },
      shop: {
        type: 'object',
        properties: { id: { type: 'string', format: 'uuid' }, slug: { type: 'string' } },
        required: ['id', 'slug'],
      },
      test: {
        type: 'boolean',
        description:
          "Only on a test event, sent by a flow's test-run, and then `true`: its `data` is a made-up example unless the person chose one of the shop's records. Real events have no `test` field.",
      },
      ...(changes ? { changes: { $ref: '#/components/schemas/EventChanges' } } : {}),
      data: { $ref: `#/components/schemas/${DATA_OF_FAMILY[type.split('.')[0] as Family]}` },
    },
    required: ['id', 'type', 'apiVersion', 'createdAt', 'shop', ...(changes ? ['changes'] : []), 'data'],
  };
}

/** The envelope of every event type, and what update events say changed, as components. */
export const EVENT_SCHEMAS: Record<string, Node> = {
  EventChanges: {
    type: 'object',
    description: 'What an update event changed. It holds no old values but the status: keep your own copy if you need them.',
    properties: {
      fields: {
        type: 'array',
        items: { type: 'string' },
        description:
          'The names of the changed `data` fields (`shippingFee`; a variant field as `variants.price`; `contacts`, `addresses`, `images` or `events` for those collections)',
      },
      status: {
        type: 'object',
        description: 'Present when the status changed',
        properties: { from: { type: 'string' }, to: { type: 'string' } },
        required: ['from', 'to'],
      },
    },
    required: ['fields'],
  },
  ...Object.fromEntries(EVENT_TYPES.map((type) => [eventSchemaName(type), envelopeSchema(type)])),
};

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', examples: [example] },
});

/**
 * The Standard Webhooks headers of every delivery, written in each webhook rather than as components:
 * generators that keep only what `paths` reach (oapi-codegen's default pruning) still see them.
 */
const WEBHOOK_HEADERS = {
  WebhookId: header(
    'webhook-id',
    'The delivery id: the same on every attempt and resend of this delivery. De-duplicate by it.',
    'msg_2mT8qLx0bVwZfJ3kYc9R1pHd',
  ),
  WebhookTimestamp: header(
    'webhook-timestamp',
    'Seconds since the Unix epoch when this attempt was signed. Refuse a timestamp more than 5 minutes away from your clock.',
    '1741944600',
  ),
  WebhookSignature: header(
    'webhook-signature',
    "`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` with the flow's signing secret (`whsec_…`, base64 after the prefix), space-separated when a rotation signs with two secrets. Accept the delivery when one signature matches; verify against the raw body, before parsing it.",
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
};

const camel = (type: string) => type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase());

/** One webhook: the flow's POST of `type`'s envelope to the address chosen in its HTTP-send block. */
function webhook(type: EventType): Node {
  const family = type.split('.')[0] as Family;
  return {
    post: {
      operationId: `${camel(type)}Event`,
      tags: ['Webhooks'],
      summary: `${type}: ${WHEN[type].replace(/ \(.*\)$/, '')}`,
      description: [
        `${WHEN[type]}. \`data\` is the ${DATA_OF_FAMILY[family]} as its \`GET\` answers it, holding only what the flow's account may read.`,
        `The flow's account needs ${codeList(EVENT_READ_PERMISSIONS[type])}.`,
        'Delivery is at least once and in any order: de-duplicate by `webhook-id` (by the envelope `id` across several flows) and order by `createdAt`. Ignore event types and fields you do not know.',
      ].join('\n\n'),
      security: [],
      parameters: Object.values(WEBHOOK_HEADERS),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } } },
      },
      responses: {
        '2XX': { description: `Delivered. Answer within ${ATTEMPT_TIMEOUT_MS / 1000} s; the body is not read.` },
        '410': { description: 'Gone: this delivery is not attempted again.' },
        default: {
          description: 'Any other answer, a redirect or no answer in time: attempted again later, honouring `Retry-After` on 429 and 503.',
        },
      },
    },
  };
}

/** The `webhooks` of the document, in the catalogue's order. */
export function webhooks(): Record<string, Node> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, webhook(type)]));
}
