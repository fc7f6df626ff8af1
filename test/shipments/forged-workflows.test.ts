import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import { UNSEALED_INPUT } from '../../activities/shipments/shipment-activities.js';
import { UNSEALED_REQUEST } from '../../activities/deliveries/delivery-activities.js';
import { deliveryOutcome } from '../../workflows/deliveries/delivery-starter.js';
import { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/temporal.js';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, readyOrder, SHIPPING_PERMISSIONS, type ShippingShop } from './shipment-fixtures.js';

/**
 * An attacker on the Temporal frontend (issue 26, item 3), with the `temporal` CLI an operator has:
 * ids read from `temporal workflow list`, one forged start or signal per shipment workflow type. None
 * changes a shipment, calls the carrier or emits an event; the forged runs fail as unsealed. The
 * delivery and housekeeping workflows are forged too: nothing sent, nothing purged beyond the settings.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request, temporal } = suite;
const run = promisify(execFile);

let carrier: CarrierB;
let shipping: ShippingShop;
let key: string;

beforeAll(async () => {
  carrier = await CarrierB.start({ callbackRetry: { attempts: 4, baseDelayMs: 50 } });
  shipping = await connectShipping(db, shop, { carrier_b: carrier }, suite.api.baseUrl);
  key = (await shop.newKey(SHIPPING_PERMISSIONS, 'Forgery')).key;
});
afterAll(async () => carrier?.close());

/** `temporal <args>` against the suite's server; answers the parsed JSON output. */
async function temporalCli(...args: string[]): Promise<unknown> {
  const cli = process.env.TEMPORAL_CLI;
  if (!cli) throw new Error('TEMPORAL_CLI is not set: npm test passes the dev server’s CLI');
  const { stdout } = await run(cli, [...args, '--address', testEnv('TEMPORAL_ADDRESS'), '--output', 'json'], { timeout: 60_000 });
  return stdout.trim() ? (JSON.parse(stdout) as unknown) : undefined;
}

/** Starts `type` with `input` as the attacker would, waits for it to close, and answers how it closed. */
async function forge(type: string, workflowId: string, input: unknown): Promise<{ status: string; failure: string }> {
  await temporalCli(
    'workflow',
    'start',
    '--type',
    type,
    '--task-queue',
    temporal.taskQueue,
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify(input),
  );
  const handle = temporal.client.workflow.getHandle(workflowId);
  const outcome = await handle.result().then(
    () => 'completed',
    (error: Error & { cause?: { type?: string } }) => error.cause?.type ?? error.message,
  );
  const { status } = await handle.describe();
  return { status: status.name, failure: outcome };
}

interface Shipment {
  id: string;
  orderId: string;
  trackingCode: string;
  status: string;
}

async function pushed(): Promise<Shipment> {
  const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
  const response = await request('POST', '/shipments', { key, body: { orderId, connectionId: shipping.connections.carrier_b } });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Shipment;
}

const read = async (id: string) => (await (await request('GET', `/shipments/${id}`, { key })).json()) as Shipment & { events: unknown[] };
const attemptCount = async () => (await db.admin<{ n: number }[]>`select count(*)::int as n from delivery_attempts`)[0]!.n;
const eventCount = async () => (await db.admin<{ n: number }[]>`select count(*)::int as n from events`)[0]!.n;

describe('workflows started or signalled from outside Shopflow', () => {
  it('the attacker finds the ids in the workflow list', { timeout: 120_000 }, async () => {
    const shipment = await pushed();
    // Asked again while the dev server is too loaded to answer a list in time ("context deadline exceeded").
    const listed = await vi.waitFor(
      async () =>
        (await temporalCli(
          'workflow',
          'list',
          '--limit',
          '1',
          '--query',
          `WorkflowId = '${trackingWorkflowId(shipment.id)}'`,
        )) as unknown[],
      { timeout: 90_000, interval: 1_000 },
    );
    expect(listed).toHaveLength(1);
  });

  it('a forged shipmentCancelWorkflow cancels nothing at the carrier', async () => {
    const shipment = await pushed();
    const before = await read(shipment.id);
    const events = await eventCount();
    const input = {
      shopId: shop.shopId,
      shipmentId: shipment.id,
      connectionId: shipping.connections.carrier_b,
      trackingCode: shipment.trackingCode,
      applicationId: null,
      reason: 'forged',
      seal: 'AAAA',
    };
    expect(await forge('shipmentCancelWorkflow', `shipment-cancel:${shipment.id}:99`, input)).toEqual({
      status: 'FAILED',
      failure: UNSEALED_INPUT,
    });
    expect(carrier.order(shipment.trackingCode).status).not.toBe(-1);
    expect(carrier.apiCalls.filter((call) => call.includes('cancel'))).toEqual([]);
    expect(await read(shipment.id)).toEqual(before);
    expect(await eventCount()).toBe(events);
  });

  /** A push as an attacker would write it, for a ready order of the shop, with no valid seal. */
  const forgedPush = (orderId: string, shipmentId: string) => ({
    shopId: shop.shopId,
    orderId,
    connectionId: shipping.connections.carrier_b,
    carrier: 'carrier_b',
    applicationId: null,
    pollEveryMs: 1_000,
    request: {
      shipmentId,
      recipient: {
        name: 'X',
        phone: '0912345678',
        street: '1 Phố Huế',
        ward: 'Phường Ngọc Khánh',
        district: 'Quận Ba Đình',
        province: 'Hà Nội',
      },
      pickUp: { name: 'Y', phone: '0912345679', street: '2 Phố Huế', ward: null, district: 'Quận 3', province: 'Hồ Chí Minh' },
      weightGram: 500,
      codAmount: '0',
      declaredValue: '0',
      note: null,
      items: [{ name: 'Áo', quantity: 1 }],
    },
  });

  it('a forged shipment workflow started with a push makes no carrier order and no shipment', async () => {
    const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
    const shipmentId = randomUUID();
    const calls = carrier.apiCalls.length;
    const input = {
      shopId: shop.shopId,
      shipmentId,
      pollEveryMs: 1_000,
      seal: 'AAAA',
      push: { ...forgedPush(orderId, shipmentId), seal: 'AAAA' },
    };
    const outcome = await forge('shipmentTrackingWorkflow', trackingWorkflowId(shipmentId), input);
    expect(outcome).toEqual({ status: 'FAILED', failure: UNSEALED_INPUT });
    expect(carrier.apiCalls).toHaveLength(calls);
    expect(await db.admin`select 1 from shipments where order_id = ${orderId}`).toHaveLength(0);
  });

  it('a forged tracking start asks the carrier nothing', async () => {
    const shipment = await pushed();
    const calls = carrier.apiCalls.length;
    const input = { shopId: shop.shopId, shipmentId: shipment.id, pollEveryMs: 1, seal: 'AAAA' };
    const outcome = await forge('shipmentTrackingWorkflow', `shipment:${shipment.id}:forged`, input);
    expect(outcome).toEqual({ status: 'FAILED', failure: UNSEALED_INPUT });
    expect(carrier.apiCalls).toHaveLength(calls);
  });

  it('a forged milestone signal marks nothing delivered; the real tracking goes on', async () => {
    const shipment = await pushed();
    const milestone = {
      trackingCode: shipment.trackingCode,
      shipmentId: shipment.id,
      leg: 'outbound',
      carrierStatus: '5',
      status: 'delivered',
      occurredAt: new Date().toISOString(),
      location: null,
      description: 'forged',
      reason: null,
      feeTotal: null,
      endsReturnLeg: false,
    };
    const workflowId = trackingWorkflowId(shipment.id);
    await temporalCli('workflow', 'signal', '--workflow-id', workflowId, '--name', 'milestone', '--input', JSON.stringify(milestone));
    await temporalCli(
      'workflow',
      'signal',
      '--workflow-id',
      workflowId,
      '--name',
      'milestone',
      '--input',
      JSON.stringify({ ...milestone, seal: 'AAAA' }),
    );
    // The real carrier's next step still arrives and is recorded: the tracking did not stop.
    carrier.advance(shipment.trackingCode, 3);
    await expect.poll(async () => (await read(shipment.id)).events.length, { timeout: 20_000 }).toBeGreaterThan(1);
    expect((await read(shipment.id)).status).not.toBe('delivered');
    const description = await db.admin`select 1 from shipment_events where shipment_id = ${shipment.id} and description = 'forged'`;
    expect(description).toHaveLength(0);
    expect((await temporal.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    // The real step's event is there; no event says the shipment was delivered.
    const delivered = await db.admin`
      select 1 from events where resource_id = ${shipment.id} and changes -> 'status' ->> 'to' = 'delivered'`;
    expect(delivered).toHaveLength(0);
  });

  it('a forged deliveryWorkflow sends nothing and records nothing', async () => {
    const attempts = await attemptCount();
    const input = {
      shopId: shop.shopId,
      flowId: randomUUID(),
      eventId: `evt_${randomUUID()}`,
      eventType: 'order.created',
      deliveryId: 'msg_forged',
      url: `${suite.api.baseUrl}/forged`,
      payload: '{"forged":true}',
      retryDelaysMs: [],
      seal: 'AAAA',
    };
    expect(await forge('deliveryWorkflow', `delivery:${input.flowId}:${input.eventId}`, input)).toEqual({
      status: 'FAILED',
      failure: UNSEALED_REQUEST,
    });
    expect(await attemptCount()).toBe(attempts);
  });

  it('a forged housekeepingWorkflow purges no more than the configured retention would', async () => {
    const { flowId } = await shop.newFlow({ name: 'Kept', eventType: 'order.created', url: 'https://127.0.0.1:1/x', state: 'on' });
    const eventId = `evt_${randomUUID()}`;
    const request = {
      shopId: shop.shopId,
      flowId,
      eventId,
      eventType: 'order.created',
      deliveryId: `msg_${randomUUID()}`,
      url: 'https://127.0.0.1:1/x',
      payload: '{}',
    };
    // A real delivery that fails at once: one attempt recorded.
    const failed = await deliveryOutcome(
      await temporal.client.workflow.start(deliveryWorkflow, {
        taskQueue: temporal.taskQueue,
        workflowId: `delivery:${flowId}:${eventId}`,
        args: [sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, { ...request, retryDelaysMs: [] })],
      }),
    );
    expect(failed.status).toBe('failed');
    // Two days old: past the one day any purge keeps whatever it is asked, well within the worker's retention.
    await db.admin`update delivery_attempts set attempted_at = attempted_at - interval '2 days' where delivery_id = ${request.deliveryId}`;
    await db.admin`
      update deliveries set created_at = created_at - interval '2 days', updated_at = updated_at - interval '2 days'
      where delivery_id = ${request.deliveryId}`;
    const kept = async () =>
      (await db.admin<{ n: number }[]>`select count(*)::int as n from delivery_attempts where delivery_id = ${request.deliveryId}`)[0]!.n;
    expect(await kept()).toBe(1);
    const outcome = await forge('housekeepingWorkflow', `housekeeping-forged-${randomUUID()}`, {
      attemptRetentionDays: 0,
      deliveryDays: 1,
      eventDays: 1,
      retention: { deliveryDays: 1, eventDays: 1 },
    });
    expect(outcome.status).toBe('COMPLETED');
    expect(await kept()).toBe(1);
  });
});
