import { Context, log } from '@temporalio/activity';
import type { CarrierOrder } from '../../domain/shipments/index.js';
import type { CarrierActivities } from './carrier-calls.js';
import type { ShipmentPushInput } from './shipment-inputs.js';
import type { ShipmentDetail, ShipmentRecordActivities } from './shipment-records.js';

/** The carrier's order, and its record: the shipment's detail, null when the row is gone, absent when the record failed. */
export interface PushedAtCarrier {
  order: CarrierOrder;
  shipment?: ShipmentDetail | null;
}

/**
 * A push's create and, once the carrier accepted, its record, as one local activity: one hop through
 * the worker and one marker instead of two (docs/behaviour/shipments.md). The create fails as it would alone (the
 * workflow reads the carrier's failure); a record that fails does not fail the call, whose retry
 * would only call the carrier again: the order comes back unrecorded and the workflow records it with
 * the record activity's patient retries.
 *
 * `recorded` hears of each acceptance once it is committed, before the workflow does: a request that
 * started the run in this process answers from it, a workflow activation sooner (docs/behaviour/shipments.md).
 */
export function createPushActivities(deps: {
  carrier: Pick<CarrierActivities, 'createAtCarrier'>;
  records: Pick<ShipmentRecordActivities, 'recordPushed'>;
  recorded?: (workflowId: string, shipment: ShipmentDetail) => void;
}) {
  return {
    async pushAtCarrier(push: ShipmentPushInput): Promise<PushedAtCarrier> {
      const order = await deps.carrier.createAtCarrier(push);
      try {
        const shipment = await deps.records.recordPushed(push, order);
        const workflowId = Context.current().info.workflowExecution?.workflowId;
        if (shipment && workflowId) deps.recorded?.(workflowId, shipment);
        return { order, shipment };
      } catch (error) {
        log.warn('the carrier accepted the push, its record failed: the workflow records it again', {
          shipmentId: push.request.shipmentId,
          error: (error as Error).message,
        });
        return { order };
      }
    },
  };
}

export type PushActivities = ReturnType<typeof createPushActivities>;
