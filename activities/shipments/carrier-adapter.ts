import { z } from 'zod';
import { shipmentStateSchema } from '../../domain/shipments/index.js';

/**
 * What every carrier adapter speaks, whatever the carrier: the order we push, the order the carrier
 * holds, a callback's milestone, and one error classification callers branch on.
 */

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a decimal string');
const timestamp = z.iso.datetime();

/** An address as carriers take it: names, not ids (carrier A's adapter finds its own ids from the names). */
const carrierAddressSchema = z.object({
  name: z.string().min(1),
  phone: z.string().min(1),
  street: z.string().min(1),
  ward: z.string().nullable(),
  district: z.string().min(1),
  province: z.string().min(1),
});

/** The order pushed to a carrier; `shipmentId` (our id) is its client order code / partner id. */
export const carrierOrderRequestSchema = z.object({
  shipmentId: z.uuid(),
  recipient: carrierAddressSchema,
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

/** One callback, normalised: the spec's itinerary event plus what identifies the shipment. */
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
});
export type CarrierMilestone = z.infer<typeof carrierMilestoneSchema>;

/**
 * - `rejected`: the carrier refuses the content (address, weight, its own rule), with its reason → 409 `conflict`;
 * - `unavailable`: bad credentials, 5xx, 429, time-out, network, an answer we cannot read → 503 `carrier-unavailable`;
 * - `not-cancellable`: too late to cancel → 409 `shipment-not-cancellable`;
 * - `not-found`: the carrier has no such order (for the caller) → 404 `not-found` or "not pushed yet".
 */
export const carrierErrorKinds = ['rejected', 'unavailable', 'not-cancellable', 'not-found'] as const;
export type CarrierErrorKind = (typeof carrierErrorKinds)[number];

export const problemCodeOfCarrierError = {
  rejected: 'conflict',
  unavailable: 'carrier-unavailable',
  'not-cancellable': 'shipment-not-cancellable',
  'not-found': 'not-found',
} as const satisfies Record<CarrierErrorKind, string>;

export class CarrierError extends Error {
  override readonly name = 'CarrierError';

  constructor(
    readonly kind: CarrierErrorKind,
    /** The carrier's own words (the rejection reason), or ours when it said nothing. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind}: ${reason}`, options);
  }
}

/** A callback body that is not the carrier's shape: the endpoint answers 400 and keeps nothing. */
export class InvalidCarrierCallback extends Error {
  override readonly name = 'InvalidCarrierCallback';
}

export interface CarrierAdapter {
  /** Idempotent: a repeated create (same shipment id) returns the order the carrier already has. */
  create(request: CarrierOrderRequest): Promise<CarrierOrder>;
  /** By our shipment id: the reconciliation after a lost answer. */
  lookup(shipmentId: string): Promise<CarrierOrder>;
  status(trackingCode: string): Promise<CarrierOrder>;
  /** Resolves once the order is cancelled (also when it already was). */
  cancel(trackingCode: string): Promise<void>;
  parseCallback(body: unknown): CarrierMilestone;
}

/** Every call is bounded: a silent carrier is `unavailable` after this long. */
export const CARRIER_CALL_TIMEOUT_MS = 10_000;

export interface CarrierAdapterOptions {
  timeoutMs?: number;
}

/** Whole dong: carriers take integers; our decimals may carry zero fractions. */
export function wholeDong(amount: string): number {
  return Math.round(Number(amount));
}
