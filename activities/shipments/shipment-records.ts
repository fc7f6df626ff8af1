import { log } from '@temporalio/activity';
import type { Sql } from '../../db/client.js';
import { hasValidSeal, withShop } from '../../domain/kernel/index.js';
import type { SealedMilestone, ShipmentCancelInput, ShipmentKeys, TrackingKeys } from './shipment-inputs.js';
import { assertSealedForRun, runningWorkflowId } from './sealed-inputs.js';
import { recordShipmentCancelled, recordShipmentMilestone, recordShipmentPushed } from '../../domain/orders/index.js';
import {
  dropRejectedShipment,
  trackedShipment,
  type CarrierOrder,
  type ShipmentDetail,
  type ShipmentState,
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
 *
 * `cancelRecorded` hears of each confirmed cancel once it is committed, before the workflow does: a
 * request that started the cancel in this process answers from it, a workflow activation sooner
 * (decision 0259), as a push's acceptance is handed over by its activity.
 */
export function createShipmentRecordActivities(deps: {
  sql: Sql;
  sealKey: string;
  /** Starts the shipment's tracking workflow (the worker hands it the starter's: activities import no workflow). */
  startTracking: (keys: ShipmentKeys, pollEveryMs: number) => Promise<void>;
  cancelRecorded?: (workflowId: string, shipment: ShipmentDetail) => void;
}) {
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

    /**
     * Null when the shop has no such shipment (a callback for a row since deleted). A milestone not
     * sealed for this tracking (a forged signal) is ignored and logged; the tracking goes on.
     */
    async recordMilestone(input: {
      tracking: TrackingKeys;
      milestone: SealedMilestone;
    }): Promise<{ trackingOver: boolean; statusReached?: ShipmentState | null } | null> {
      assertSealedForRun(deps.sealKey, input.tracking, 'the tracking');
      const { seal: _seal, ...milestone } = input.milestone;
      if (!hasValidSeal(deps.sealKey, input.milestone, runningWorkflowId())) {
        log.warn('a milestone not sealed by Shopflow was ignored', { shipmentId: input.tracking.shipmentId });
        return { trackingOver: false, statusReached: null };
      }
      const { shopId, shipmentId } = input.tracking;
      return (await inShop(shopId, (tx) => recordShipmentMilestone(tx, shopId, shipmentId, milestone))) ?? null;
    },

    async recordCancel(cancel: ShipmentCancelInput): Promise<ShipmentDetail> {
      assertSealedForRun(deps.sealKey, cancel, 'the cancel');
      const actor = { shopId: cancel.shopId, permissions: [], applicationId: cancel.applicationId };
      const shipment = await inShop(cancel.shopId, (tx) => recordShipmentCancelled(tx, actor, cancel.shipmentId, cancel.reason));
      deps.cancelRecorded?.(runningWorkflowId(), shipment);
      return shipment;
    },

    /** The shipment's tracking workflow, once the carrier has it (already running: fine). */
    async startShipmentTracking(input: ShipmentKeys & { pollEveryMs: number }): Promise<void> {
      const { pollEveryMs, ...keys } = input;
      await deps.startTracking(keys, pollEveryMs);
    },

    async trackingTarget(tracking: TrackingKeys): Promise<TrackedShipment | null> {
      assertSealedForRun(deps.sealKey, tracking, 'the tracking');
      return (await inShop(tracking.shopId, (tx) => trackedShipment(tx, tracking.shipmentId))) ?? null;
    },
  };
}

export type { ShipmentDetail };
export type ShipmentRecordActivities = ReturnType<typeof createShipmentRecordActivities>;
