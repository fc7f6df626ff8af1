import { log } from '@temporalio/activity';
import type { Sql } from '../../db/client.js';
import { hasValidSeal, withShop } from '../../domain/kernel/index.js';
import type { SealedMilestone, ShipmentCancelInput, ShipmentPushInput, TrackingKeys } from './shipment-inputs.js';
import { runningWorkflowId } from '../sealed-activities.js';
import { recordShipmentCancelled, recordShipmentMilestone, recordShipmentPushed } from '../../domain/orders/index.js';
import {
  dropRejectedShipment,
  trackedShipment,
  type CarrierOrder,
  type ShipmentDetail,
  type ShipmentState,
  type TrackedShipment,
} from '../../domain/shipments/index.js';

/**
 * The shipment workflows' database steps, each one transaction in the shop: the carrier's
 * acceptance or rejection of a push, a milestone, a confirmed cancel. Each is safe to run again, and
 * each takes first the workflow's sealed input (the push, the tracking, the cancel), checked by
 * activities/sealed-activities.ts.
 *
 * `cancelRecorded` hears of each confirmed cancel once it is committed, before the workflow does: a
 * request that started the cancel in this process answers from it, a workflow activation sooner
 * (docs/behaviour/shipments.md), as a push's acceptance is handed over by its activity.
 */
export function createShipmentRecordActivities(deps: {
  sql: Sql;
  sealKey: string;
  cancelRecorded?: (workflowId: string, shipment: ShipmentDetail) => void;
}) {
  return {
    /** The carrier's acceptance of `push`; null when the row is gone (it cannot be: only a rejection deletes it). */
    async recordPushed(push: ShipmentPushInput, order: CarrierOrder): Promise<ShipmentDetail | null> {
      const actor = { shopId: push.shopId, permissions: [], applicationId: push.applicationId };
      return (await withShop(deps.sql, push.shopId, (tx) => recordShipmentPushed(tx, actor, push.request.shipmentId, order))) ?? null;
    },

    /** A push the carrier refused, or that never reached it: its pending shipment goes. */
    async dropRejected(push: ShipmentPushInput): Promise<void> {
      await withShop(deps.sql, push.shopId, (tx) => dropRejectedShipment(tx, push.request.shipmentId));
    },

    /**
     * Null when the shop has no such shipment (a callback for a row since deleted). A milestone not
     * sealed for this tracking (a forged signal) is ignored and logged; the tracking goes on.
     */
    async recordMilestone(
      tracking: TrackingKeys,
      milestone: SealedMilestone,
    ): Promise<{ trackingOver: boolean; statusReached?: ShipmentState | null } | null> {
      const { seal: _seal, ...fields } = milestone;
      if (!hasValidSeal(deps.sealKey, milestone, runningWorkflowId())) {
        log.warn('a milestone not sealed by Shopflow was ignored', { shipmentId: tracking.shipmentId });
        return { trackingOver: false, statusReached: null };
      }
      const { shopId, shipmentId } = tracking;
      return (await withShop(deps.sql, shopId, (tx) => recordShipmentMilestone(tx, shopId, shipmentId, fields))) ?? null;
    },

    async recordCancel(cancel: ShipmentCancelInput): Promise<ShipmentDetail> {
      const actor = { shopId: cancel.shopId, permissions: [], applicationId: cancel.applicationId };
      const shipment = await withShop(deps.sql, cancel.shopId, (tx) =>
        recordShipmentCancelled(tx, actor, cancel.shipmentId, cancel.reason),
      );
      deps.cancelRecorded?.(runningWorkflowId(), shipment);
      return shipment;
    },

    async trackingTarget(tracking: TrackingKeys): Promise<TrackedShipment | null> {
      return (await withShop(deps.sql, tracking.shopId, (tx) => trackedShipment(tx, tracking.shipmentId))) ?? null;
    },
  };
}

export type { ShipmentDetail };
export type ShipmentRecordActivities = ReturnType<typeof createShipmentRecordActivities>;
