import type { Client, WorkflowHandle } from '@temporalio/client';
import { Problem, seal } from '../domain/kernel/index.js';
import type { CarrierOrderRequest, ShipmentDetail } from '../domain/shipments/index.js';
import { shipmentSearchAttributes as searchAttributes, type ShipmentKeys } from '../activities/shipments/tracking-start.js';
import {
  shipmentCancelWorkflow,
  shipmentPushWorkflow,
  type ShipmentCancelInput,
  type ShipmentCancelResult,
  type ShipmentPushResult,
} from '../workflows/shipments.js';

/** Where the API starts shipment workflows, how long it waits for them, and the tracking's poll interval. */
export interface ShipmentStarter {
  client: Client;
  taskQueue: string;
  waitMs: number;
  pollEveryMs: number;
  /** `DELIVERY_REQUEST_KEY`: seals every workflow input and signal (domain/kernel/seals.ts). */
  sealKey: string;
}

const NO_ANSWER = Symbol('no answer');

/** The workflow's result, or NO_ANSWER once the API's wait is over (the workflow goes on). */
async function awaitBounded<T>(handle: WorkflowHandle, waitMs: number): Promise<T | typeof NO_ANSWER> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof NO_ANSWER>((resolve) => (timer = setTimeout(() => resolve(NO_ANSWER), waitMs)));
  try {
    return await Promise.race([handle.result() as Promise<T>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `POST /shipments` after its row is committed: the push workflow (`shipment-push:<shopId>:<id>`),
 * awaited for `waitMs`. Rejected: 409 `conflict` with the carrier's reason; no answer in time or
 * none at all: 503 `carrier-unavailable` (the spec: read `GET /shipments?orderId=` before retrying).
 */
export async function pushShipment(
  starter: ShipmentStarter,
  keys: ShipmentKeys & { connectionId: string; applicationId: string | null; request: CarrierOrderRequest },
): Promise<ShipmentDetail> {
  const workflowId = `shipment-push:${keys.shopId}:${keys.shipmentId}`;
  const input = {
    shopId: keys.shopId,
    orderId: keys.orderId,
    connectionId: keys.connectionId,
    carrier: keys.carrier,
    applicationId: keys.applicationId,
    request: keys.request,
    pollEveryMs: starter.pollEveryMs,
  };
  const handle = await starter.client.workflow.start(shipmentPushWorkflow, {
    taskQueue: starter.taskQueue,
    workflowId,
    args: [seal(starter.sealKey, input, workflowId)],
    typedSearchAttributes: searchAttributes(keys),
  });
  const result = await awaitBounded<ShipmentPushResult>(handle, starter.waitMs);
  if (result === NO_ANSWER)
    throw new Problem(
      'carrier-unavailable',
      `the carrier has not answered within ${starter.waitMs / 1000} s; the push goes on: read GET /shipments?orderId=${keys.orderId} before retrying`,
    );
  if (result.outcome === 'rejected') throw new Problem('conflict', `the carrier refused the shipment: ${result.reason}`);
  if (result.outcome === 'unavailable')
    throw new Problem('carrier-unavailable', `the shipment was not created at the carrier: ${result.reason}`);
  return result.shipment;
}

/** `POST /shipments/{id}/cancel` after the request is counted: `shipment-cancel:<id>:<n>`, awaited for `waitMs`. */
export async function cancelShipment(
  starter: ShipmentStarter,
  keys: ShipmentKeys & { request: number },
  input: Omit<ShipmentCancelInput, 'seal'>,
): Promise<ShipmentDetail> {
  const workflowId = `shipment-cancel:${keys.shipmentId}:${keys.request}`;
  const handle = await starter.client.workflow.start(shipmentCancelWorkflow, {
    taskQueue: starter.taskQueue,
    workflowId,
    args: [seal(starter.sealKey, input, workflowId)],
    typedSearchAttributes: searchAttributes(keys),
  });
  const result = await awaitBounded<ShipmentCancelResult>(handle, starter.waitMs);
  if (result === NO_ANSWER)
    throw new Problem(
      'carrier-unavailable',
      `the carrier has not answered the cancel within ${starter.waitMs / 1000} s; read the shipment again before retrying`,
    );
  if (result.outcome === 'not-cancellable') throw new Problem('shipment-not-cancellable', `the carrier refuses: ${result.reason}`);
  if (result.outcome === 'unavailable') throw new Problem('carrier-unavailable', `the shipment was not cancelled: ${result.reason}`);
  return result.shipment;
}
