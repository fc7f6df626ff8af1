import { envelope, type EventType, type StoredEvent } from './event-catalogue.js';
import { SAMPLE_READERS } from './flow-samples.js';
import { deliveryIdFor, getFlow, sampleEvent } from './flows.js';
import { Problem } from './problems.js';
import type { Tx } from './tenancy.js';

/** What a delivery workflow is started with: one event, signed for one flow's HTTP-send block. */
export interface DeliveryRequest {
  shopId: string;
  flowId: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  url: string;
  payload: string;
}

async function shopSlug(tx: Tx, shopId: string): Promise<string> {
  const [shop] = await tx<{ slug: string }[]>`select slug from shops where id = ${shopId}`;
  if (!shop) throw new Problem('not-found', `no shop ${shopId}`);
  return shop.slug;
}

/** A test-run: a sample event of the flow's trigger type, rendered for the flow's account. */
export async function testRunRequest(tx: Tx, shopId: string, flowId: string): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const event = await sampleEvent(tx, flow.eventType as EventType, SAMPLE_READERS);
  return {
    shopId,
    flowId,
    eventId: event.id,
    eventType: event.type,
    deliveryId: deliveryIdFor(flowId, event.id),
    url: flow.url,
    payload: envelope(event, { id: shopId, slug: await shopSlug(tx, shopId) }, flow.permissions),
  };
}

/**
 * A resend of a failed delivery: the same event and `webhook-id`, to the flow's current address.
 * 404 for a delivery of another flow (or a test-run), 409 unless it has failed.
 */
export async function resendRequest(tx: Tx, shopId: string, flowId: string, deliveryId: string): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const [row] = await tx<(StoredEvent & { status: string })[]>`
    select d.status, e.id, e.type, e.created_at, e.changes, e.data
    from deliveries d join events e on e.id = d.event_id
    where d.delivery_id = ${deliveryId} and d.flow_id = ${flow.id} and not d.test_run`;
  if (!row) throw new Problem('not-found', `no delivery ${deliveryId} of this flow`);
  if (row.status !== 'failed') throw new Problem('conflict', `only a failed delivery can be resent (this one is ${row.status})`);
  return {
    shopId,
    flowId: flow.id,
    eventId: row.id,
    eventType: row.type,
    deliveryId,
    url: flow.url,
    payload: envelope(row, { id: shopId, slug: await shopSlug(tx, shopId) }, flow.permissions),
  };
}
