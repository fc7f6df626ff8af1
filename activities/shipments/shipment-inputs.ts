import type { CarrierMilestone, CarrierOrderRequest } from '../../domain/shipments/index.js';

/**
 * What the shipment workflows hand their activities: the inputs the starter seals
 * (workflows/shipments/shipment-starter.ts) and the activities check before they act. Types only,
 * so the workflows import them without code, and nothing here imports a workflow.
 */

/** Which shipment a workflow is about: what an operator filters by in the Temporal Web UI. */
export interface ShipmentKeys {
  shopId: string;
  shipmentId: string;
  orderId: string;
  carrier: string;
  /** For the run's summary in the Temporal UI; absent in runs of older versions. */
  orderCode?: string;
  trackingCode?: string;
}

/** A carrier's milestone as Shopflow signals it: sealed for the tracking workflow (workflows/shipments/shipment-starter.ts). */
export type SealedMilestone = CarrierMilestone & { seal: string };

export interface ShipmentPushInput {
  shopId: string;
  orderId: string;
  connectionId: string;
  carrier: string;
  /** The application that pushed (the shop log's actor). */
  applicationId: string | null;
  request: CarrierOrderRequest;
  /** The order's code, for the tracking's summary (absent in pushes of older versions). */
  orderCode?: string;
  /** How long the tracking workflow waits for a callback before it asks the carrier. */
  pollEveryMs: number;
  /** After a look-up finds nothing, how long to wait before believing it (a late create still lands). */
  recheckAfterMs?: number;
  /** Shopflow's seal of the other fields, for this workflow's id (domain/kernel/seals.ts): the activities act only on it. */
  seal: string;
}

/** Which shipment a tracking workflow follows, sealed by Shopflow for the workflow's id. */
export interface TrackingKeys {
  shopId: string;
  shipmentId: string;
  pollEveryMs: number;
  seal: string;
}

export interface ShipmentCancelInput {
  shopId: string;
  shipmentId: string;
  connectionId: string;
  trackingCode: string;
  applicationId: string | null;
  reason: string | null;
  /** Shopflow's seal of the other fields, for this workflow's id. */
  seal: string;
}
