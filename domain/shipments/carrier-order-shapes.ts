import { z } from 'zod';
import { carrierAddressSchema, carrierRecipientSchema } from './carrier-address.js';
import { shipmentStateSchema } from './shipment-shapes.js';

/**
 * What Shopflow and a carrier exchange, whatever the carrier: the order we push, the order the
 * carrier holds, and one milestone of a callback or a poll. The adapters (activities/shipments/)
 * speak each carrier's own shape and translate to these; the shipments module records them.
 */

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a decimal string');
const timestamp = z.iso.datetime();

/** The order pushed to a carrier; `shipmentId` (our id) is its client order code / partner id. */
export const carrierOrderRequestSchema = z.object({
  shipmentId: z.uuid(),
  recipient: carrierRecipientSchema,
  pickUp: carrierAddressSchema,
  weightGram: z.number().int().min(1).max(50_000),
  codAmount: decimal,
  declaredValue: decimal,
  note: z.string().nullable(),
  items: z.array(z.object({ name: z.string().min(1), quantity: z.number().int().min(1), price: decimal.optional() })).min(1),
});
export type CarrierOrderRequest = z.infer<typeof carrierOrderRequestSchema>;

/** The order as the carrier holds it (create, look-up, status). `status` null: the code does not tell a state. */
export const carrierOrderSchema = z.object({
  trackingCode: z.string().min(1),
  /** Our shipment id as the carrier keeps it. */
  shipmentId: z.string().nullable(),
  feeTotal: decimal.nullable(),
  expectedDeliveryAt: timestamp.nullable(),
  carrierStatus: z.string(),
  status: shipmentStateSchema.nullable(),
  /** Carrier B: the label the undelivered goods come back under after a partial delivery. */
  returnTrackingCode: z.string().nullable(),
});
export type CarrierOrder = z.infer<typeof carrierOrderSchema>;

/** One callback (or poll), normalised: the spec's itinerary event plus what identifies the shipment. */
export const carrierMilestoneSchema = z.object({
  /** The code the milestone is about: the return leg's own label for carrier B's return leg. */
  trackingCode: z.string().min(1),
  shipmentId: z.string().nullable(),
  leg: z.enum(['outbound', 'return']),
  carrierStatus: z.string(),
  status: shipmentStateSchema.nullable(),
  occurredAt: timestamp,
  location: z.string().nullable(),
  description: z.string().nullable(),
  reason: z.string().nullable(),
  feeTotal: decimal.nullable(),
  /** The return leg's goods are back at the shop: nothing more will come for this shipment. */
  endsReturnLeg: z.boolean(),
  /** Read from the carrier's status endpoint (no time of its own): kept only when it tells a new state. */
  polled: z.boolean().optional(),
});
export type CarrierMilestone = z.infer<typeof carrierMilestoneSchema>;
