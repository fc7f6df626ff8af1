import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, readyOrder, SHIPPING_PERMISSIONS, type ShippingShop } from './shipment-fixtures.js';
import { shipmentStateQuery, trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import { ShipmentStatusKey } from '../../workflows/search-attributes.js';

/**
 * What an operator sees in Temporal (issue 29): a push or cancel that did not happen closes as
 * Failed with the carrier's words, a done cancel as Completed, an accepted push's run goes on as the
 * shipment's tracking, while the API answers as the spec says.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

let carrier: CarrierB;
let shipping: ShippingShop;
let key: string;

beforeAll(async () => {
  carrier = await CarrierB.start({ callbackRetry: { attempts: 2, baseDelayMs: 50 } });
  shipping = await connectShipping(db, shop, { carrier_b: carrier }, suite.api.baseUrl);
  key = (await shop.newKey(SHIPPING_PERMISSIONS, 'Shipping')).key;
});
afterAll(async () => carrier?.close());

const push = (orderId: string) => request('POST', '/shipments', { key, body: { connectionId: shipping.connections.carrier_b!, orderId } });

/** How the closed run of `workflowType` for the order ended in Temporal: its status, and its failure's message. */
async function closedRun(workflowType: string, orderId: string): Promise<{ status: string; failure?: string }> {
  const { client } = suite.temporal;
  const query = `WorkflowType = '${workflowType}' AND OrderId = '${orderId}' AND ExecutionStatus != 'Running'`;
  for (let tries = 0; tries < 100; tries += 1) {
    for await (const run of client.workflow.list({ query })) {
      const failure = await client.workflow
        .getHandle(run.workflowId, run.runId)
        .result()
        .then(
          () => undefined,
          (error: unknown) => (error instanceof WorkflowFailedError ? error.cause?.message : String(error)),
        );
      return { status: run.status.name, ...(failure ? { failure } : {}) };
    }
    await sleep(100); // the visibility store catches up
  }
  throw new Error(`no closed ${workflowType} for order ${orderId}`);
}

describe('shipment runs in Temporal’s own status', () => {
  it('fails the run of a push the carrier refused with its words; an accepted push’s run goes on as its tracking', async () => {
    const refusedOrder = await readyOrder(db, shop, shipping.warehouseId);
    carrier.faults.rejectNextOrders('Địa chỉ lấy hàng nằm trong danh sách đen');
    expect((await push(refusedOrder.orderId)).status).toBe(409);
    expect(await closedRun('shipmentTrackingWorkflow', refusedOrder.orderId)).toEqual({
      status: 'FAILED',
      failure: 'the carrier refused the shipment: Địa chỉ lấy hàng nằm trong danh sách đen',
    });

    const acceptedOrder = await readyOrder(db, shop, shipping.warehouseId);
    const accepted = (await (await push(acceptedOrder.orderId)).json()) as { id: string; trackingCode: string };

    // The accepted push's run goes on as the shipment's tracking, and says what it is about at a
    // glance: the order's code and the carrier, then the tracking code among its current details.
    const { code } = (await (await request('GET', `/orders/${acceptedOrder.orderId}`, { key })).json()) as { code: string };
    const run = suite.temporal.client.workflow.getHandle(trackingWorkflowId(accepted.id));
    const described = await run.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(await described.staticSummary()).toBe(`tracking of order ${code} at carrier_b`);
    const metadata = await run.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe(`**Tracking code** ${accepted.trackingCode}`);
  });

  it('closes a cancel the carrier refused as Failed, saying so', async () => {
    const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
    const shipment = (await (await push(orderId)).json()) as { id: string; trackingCode: string };
    carrier.advance(shipment.trackingCode, 4);
    expect((await request('POST', `/shipments/${shipment.id}/cancel`, { key })).status).toBe(409);
    expect(await closedRun('shipmentCancelWorkflow', orderId)).toEqual({
      status: 'FAILED',
      failure: expect.stringMatching(/^the carrier refused to cancel: \S/),
    });
  });
});

describe('a shipment’s tracking read at a glance', () => {
  it('shows the status each callback reached as ShipmentStatus, and answers it to the shipmentState query', async () => {
    const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
    const shipment = (await (await push(orderId)).json()) as { id: string; trackingCode: string };
    carrier.advance(shipment.trackingCode, 4);
    const read = async () => ((await (await request('GET', `/shipments/${shipment.id}`, { key })).json()) as { status: string }).status;
    let status = await read();
    for (let tries = 0; tries < 100 && status === 'pending'; tries += 1) {
      await sleep(100);
      status = await read();
    }
    expect(status).not.toBe('pending');

    const tracking = suite.temporal.client.workflow.getHandle(trackingWorkflowId(shipment.id));
    expect(await tracking.query(shipmentStateQuery)).toMatchObject({ status, lastMilestone: { carrierStatus: expect.any(String) } });
    let described = await tracking.describe();
    for (let tries = 0; tries < 100 && described.typedSearchAttributes.get(ShipmentStatusKey) !== status; tries += 1) {
      await sleep(100);
      described = await tracking.describe();
    }
    expect(described.typedSearchAttributes.get(ShipmentStatusKey)).toBe(status);
    // Its details keep the tracking code beside the status the milestones reached.
    const metadata = await tracking.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(
      new RegExp(`^\\*\\*Tracking code\\*\\* ${shipment.trackingCode}; \\*\\*Status\\*\\* ${status}; last milestone `),
    );
  });
});
