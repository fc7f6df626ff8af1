import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { seal } from '../../domain/kernel/index.js';
import type { CarrierMilestone } from '../../domain/shipments/index.js';
import {
  shipmentMilestoneSignal,
  shipmentTrackingWorkflow,
  trackingWorkflowId,
  type ShipmentTrackingInput,
} from '../../workflows/shipments.js';
import { CarrierKey, OrderIdKey, ShipmentIdKey, ShopIdKey } from '../../workflows/search-attributes.js';

/** Which shipment a workflow is about: what an operator filters by in the Temporal Web UI. */
export interface ShipmentKeys {
  shopId: string;
  shipmentId: string;
  orderId: string;
  carrier: string;
}

export function shipmentSearchAttributes(keys: ShipmentKeys): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ShopIdKey, value: keys.shopId },
    { key: ShipmentIdKey, value: keys.shipmentId },
    { key: OrderIdKey, value: keys.orderId },
    { key: CarrierKey, value: keys.carrier },
  ]);
}

/** Where tracking workflows run, how long a shipment's callbacks may be silent before a poll, and what seals their inputs. */
export interface TrackingStarter {
  client: Client;
  taskQueue: string;
  pollEveryMs: number;
  /** `DELIVERY_REQUEST_KEY`: seals every workflow input and signal Shopflow sends (domain/kernel/seals.ts). */
  sealKey: string;
}

const trackingStart = (starter: TrackingStarter, keys: ShipmentKeys) => {
  const workflowId = trackingWorkflowId(keys.shipmentId);
  const tracking = seal(
    starter.sealKey,
    { shopId: keys.shopId, shipmentId: keys.shipmentId, pollEveryMs: starter.pollEveryMs },
    workflowId,
  );
  return {
    taskQueue: starter.taskQueue,
    workflowId,
    args: [tracking] as [ShipmentTrackingInput],
    typedSearchAttributes: shipmentSearchAttributes(keys),
  };
};

/** Starts the shipment's tracking workflow (`shipment:<id>`); already running (a callback came first) is success. */
export async function startTracking(starter: TrackingStarter, keys: ShipmentKeys): Promise<void> {
  try {
    await starter.client.workflow.start(shipmentTrackingWorkflow, trackingStart(starter, keys));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** A carrier callback: a signal to the shipment's tracking workflow, started if it is not running (signal-with-start). */
export async function signalMilestone(starter: TrackingStarter, keys: ShipmentKeys, milestone: CarrierMilestone): Promise<void> {
  await starter.client.workflow.signalWithStart(shipmentTrackingWorkflow, {
    ...trackingStart(starter, keys),
    signal: shipmentMilestoneSignal,
    signalArgs: [seal(starter.sealKey, milestone, trackingWorkflowId(keys.shipmentId))],
  });
}
