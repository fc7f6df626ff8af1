import { z } from 'zod';
import { Amount, NOT_BLANK } from '../kernel/index.js';
import { carrierSchema } from './carrier-connection-input.js';

/** The spec's shipment states. */
export const shipmentStates = [
  'pending',
  'delivering',
  'delivered',
  'delivery_failed',
  'returning',
  'returned',
  'partially_returned',
  'cancelled',
  'lost',
  'damaged',
  'exception',
  'scrapped',
] as const;
export const shipmentStateSchema = z.enum(shipmentStates);
export type ShipmentState = z.infer<typeof shipmentStateSchema>;

/** DESIGN.md's final states (`partially_returned` ends the outbound leg); the `ended` column of migration 15 agrees. */
export const finalShipmentStates: readonly ShipmentState[] = [
  'delivered',
  'returned',
  'partially_returned',
  'cancelled',
  'lost',
  'damaged',
  'scrapped',
];

const timestamp = z.iso.datetime();
const decimal = z.string().regex(/^-?\d+(\.\d+)?$/);

/** One milestone of the itinerary; `status` null when it does not change the shipment's state. */
export const shipmentEventSchema = z.object({
  id: z.uuid(),
  status: shipmentStateSchema.nullable(),
  carrierStatus: z.string().nullable(),
  occurredAt: timestamp,
  location: z.string().nullable(),
  description: z.string().nullable(),
  reason: z.string().nullable(),
});
export type ShipmentEvent = z.infer<typeof shipmentEventSchema>;

/** Spec, Shipment list row (no itinerary). */
export const shipmentListRowSchema = z
  .object({
    id: z.uuid(),
    carrier: carrierSchema,
    trackingCode: z.string().nullable(),
    status: shipmentStateSchema,
    orderId: z.uuid(),
    orderCode: z.string(),
    codAmount: decimal.nullable(),
    feeTotal: decimal.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    expectedDeliveryAt: timestamp.nullable(),
    failReason: z.string().nullable(),
  })
  .meta({ id: 'ShipmentRow' });
export type ShipmentListRow = z.infer<typeof shipmentListRowSchema>;

/** Spec, Shipment detail: the list row, the recipient, weight, pick-up time and the itinerary in time order. */
export const shipmentDetailSchema = shipmentListRowSchema
  .extend({
    recipientName: z.string().nullable(),
    recipientPhone: z.string().nullable(),
    recipientAddress: z.string().nullable(),
    weightGram: z.number().int().nullable(),
    pickedUpAt: timestamp.nullable(),
    events: z.array(shipmentEventSchema),
  })
  .meta({ id: 'Shipment' });
export type ShipmentDetail = z.infer<typeof shipmentDetailSchema>;

/** The detail form of the creation response has no `updatedAt` (spec). */
export const createdShipmentSchema = shipmentDetailSchema.omit({ updatedAt: true });
export type CreatedShipment = z.infer<typeof createdShipmentSchema>;

/** `POST /shipments`: what an integrator asks the carrier to carry, the one shape of a push's request. */
export const pushRequestSchema = z.strictObject({
  orderId: z.uuid(),
  connectionId: z.uuid().describe("The shop's carrier connection (GET /carrier-connections)"),
  weightGram: z
    .number()
    .int()
    .min(1)
    .max(50_000)
    .optional()
    .describe('Declared weight; default from the catalog weights of the goods (1000 g when unknown)'),
  codAmount: Amount.optional().describe('Cash on delivery; default the order total less what is paid and the credit applied, at least 0'),
  note: z.string().trim().min(1).max(500).meta(NOT_BLANK).optional().describe('Note for the carrier'),
});
export type PushRequest = z.infer<typeof pushRequestSchema>;
