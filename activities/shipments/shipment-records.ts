import type { Sql } from '../../db/client.js';
import { startTracking, type ShipmentKeys, type TrackingStarter } from './tracking-start.js';
import { withShop } from '../../domain/kernel/index.js';
import { recordShipmentCancelled, recordShipmentMilestone, recordShipmentPushed } from '../../domain/orders/index.js';
import {
  dropRejectedShipment,
  trackedShipment,
  type CarrierMilestone,
  type CarrierOrder,
  type ShipmentDetail,
  type TrackedShipment,
} from '../../domain/shipments/index.js';

/** Which shipment of which shop a step writes, and the application that asked (null: the carrier, the system). */
export interface ShipmentRef {
  shopId: string;
  shipmentId: string;
}

/**
 * The shipment workflows' database steps, each one transaction in the shop: the carrier's
 * acceptance or rejection of a push, a milestone, a confirmed cancel; and the start of a shipment's
 * tracking workflow. Each is safe to run again.
 */
export function createShipmentRecordActivities(deps: { sql: Sql; tracking: Omit<TrackingStarter, 'pollEveryMs'> }) {
  const inShop = <T>(shopId: string, work: Parameters<typeof withShop<T>>[2]) => withShop(deps.sql, shopId, work);
  return {
    /** Null when the row is gone (it cannot be: only a rejection deletes it). */
    async recordPushed(input: ShipmentRef & { applicationId: string | null; order: CarrierOrder }): Promise<ShipmentDetail | null> {
      const actor = { shopId: input.shopId, permissions: [], applicationId: input.applicationId };
      return (await inShop(input.shopId, (tx) => recordShipmentPushed(tx, actor, input.shipmentId, input.order))) ?? null;
    },

    async dropRejected(input: ShipmentRef): Promise<void> {
      await inShop(input.shopId, (tx) => dropRejectedShipment(tx, input.shipmentId));
    },

    /** Null when the shop has no such shipment (a callback for a row since deleted). */
    async recordMilestone(input: ShipmentRef & { milestone: CarrierMilestone }): Promise<{ trackingOver: boolean } | null> {
      return (await inShop(input.shopId, (tx) => recordShipmentMilestone(tx, input.shopId, input.shipmentId, input.milestone))) ?? null;
    },

    async recordCancel(input: ShipmentRef & { applicationId: string | null; reason: string | null }): Promise<ShipmentDetail> {
      const actor = { shopId: input.shopId, permissions: [], applicationId: input.applicationId };
      return inShop(input.shopId, (tx) => recordShipmentCancelled(tx, actor, input.shipmentId, input.reason));
    },

    /** The shipment's tracking workflow, once the carrier has it (already running: fine). */
    async startShipmentTracking(input: ShipmentKeys & { pollEveryMs: number }): Promise<void> {
      const { pollEveryMs, ...keys } = input;
      await startTracking({ ...deps.tracking, pollEveryMs }, keys);
    },

    async trackingTarget(input: ShipmentRef): Promise<TrackedShipment | null> {
      return (await inShop(input.shopId, (tx) => trackedShipment(tx, input.shipmentId))) ?? null;
    },
  };
}

export type { ShipmentDetail };
export type ShipmentRecordActivities = ReturnType<typeof createShipmentRecordActivities>;
