import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../../../domain/events/index.js';
import { flowConditionSchema } from '../../../domain/flows/index.js';
import { Name } from '../../../domain/kernel/index.js';

/** The admin API's shapes of a flow: as read, as written, and a test-run's choices. */

const EventTypeName = z.enum(EVENT_TYPES as [EventType, ...EventType[]]);
export const FlowState = z.enum(['draft', 'on', 'off']);

const FlowCondition = flowConditionSchema
  .describe(
    'The Condition block between Trigger and HTTP-send: rules on the envelope (`data.<field>…`, `changes.fields`, `changes.status.to`), all or any of which must hold. An event it turns away starts no delivery; the shop log records the skipped run.',
  )
  .meta({ id: 'AdminFlowCondition' });

export const Flow = z
  .object({
    id: z.uuid(),
    name: z.string(),
    eventType: z.string().describe('The first of `eventTypes` (what a one-type client reads)'),
    eventTypes: z.array(z.string()).describe("The Trigger's event types: one address and one secret for all of them"),
    condition: FlowCondition.nullable(),
    pageId: z.uuid().nullable(),
    url: z.string(),
    httpEnabled: z
      .boolean()
      .describe(
        'false after the receiver answered 410 Gone, until the flow is switched on again (`POST /flows/{id}/state` `on`, a flow already on too)',
      ),
    state: FlowState,
    permissions: z.array(z.string()).describe("The flow's account: what it may read"),
    pageIds: z.array(z.uuid()),
    switchedOnAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AdminFlow' });

export const ListedFlow = Flow.extend({
  lastDelivery: z.object({ status: z.string(), createdAt: z.string() }).nullable().describe("The flow's latest run"),
}).meta({ id: 'AdminListedFlow' });

export const HistoryQuery = z.strictObject({
  status: z.enum(['delivered', 'retrying', 'failed', 'gone']).optional(),
  eventType: EventTypeName.optional(),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const FlowInput = z.strictObject({
  name: Name,
  eventTypes: z
    .array(EventTypeName)
    .min(1)
    .max(EVENT_TYPES.length)
    .optional()
    .describe("The Trigger's event types (give this or `eventType`); the account's default is every type's read permissions"),
  eventType: EventTypeName.optional().describe('One event type: the same as `eventTypes` of one'),
  condition: FlowCondition.nullish().describe('Null or absent: every event of the types is delivered'),
  pageId: z.uuid().nullish(),
  url: z
    .url({ protocol: /^https$/, error: 'must be an https:// address' })
    .max(2000)
    .describe('https only, to a public internet address (as each delivery checks it)'),
  permissions: z.array(z.string()).max(50).optional(),
  pageIds: z.array(z.uuid()).max(100).optional(),
  state: FlowState.optional(),
});

/**
 * A test-run's choice: a real record of the trigger's family (for stock, a variant), instead of the
 * made-up example; which of the event types to test; and the builder's unsaved edits, tested instead
 * of the saved flow's.
 */
export const TestRunBody = FlowInput.pick({ name: true, eventTypes: true, condition: true, pageId: true, url: true, permissions: true })
  .partial()
  .extend({
    eventType: EventTypeName.optional().describe("The event type to test: one of the flow's (by default its first)"),
    recordId: z.uuid().optional().describe('An order, product, customer, shipment or message id, or a variant id for stock'),
  });

export const ConditionVerdict = z
  .object({
    holds: z.boolean().describe('false: a real event like this one would be skipped'),
    rules: z.array(z.boolean()).describe('Each rule, in order: whether it held'),
  })
  .nullable()
  .describe("Whether the test event passes the flow's condition; null when the flow has none");
