import { shopIdentity } from '../access/index.js';
import { Problem, seal, type Sealed } from '../kernel/index.js';
import { envelope, storedEvent, type EventType, type StoredEvent } from '../events/index.js';
import { mayReadContent } from './deliveries.js';
import { SAMPLE_READERS } from './flow-samples.js';
import { deliveryIdFor, getFlow, matchingFlows, sampleEvent } from './flows.js';
import type { Tx } from '../kernel/index.js';

/** What a delivery workflow is started with: one event, signed for one flow's HTTP-send block. */
export interface DeliveryRequest {
  shopId: string;
  flowId: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  url: string;
  payload: string;
  /** What the run is about, for operators reading it in the Temporal UI (its summary); absent in requests of older versions. */
  about?: DeliveryAbout;
}

/** The shop's slug, the flow's name and the record's code or name (null when the event's data has neither). */
export interface DeliveryAbout {
  shopSlug: string;
  flowName: string;
  record: string | null;
}

/** The code (an order's), else the name (a product's, a customer's) an operator knows the event's record by. */
function recordLabel(data: Record<string, unknown>): string | null {
  const label = data.code ?? data.name;
  return typeof label === 'string' ? label : null;
}

/**
 * A delivery request with `seal` (domain/kernel/seals.ts), under the server-side `DELIVERY_REQUEST_KEY`:
 * whoever can start a workflow could otherwise have the worker sign any body for any address. The
 * relay, the admin API and the CLI seal what they start; the worker sends nothing whose seal does not
 * verify. Its scope is the request itself (the delivery id names the flow and event), so a delivery's
 * resend, under a new workflow id, sends the same sealed request.
 */
export function sealDeliveryRequest<T extends DeliveryRequest>(key: string, request: T): Sealed<T> {
  return seal(key, request);
}

/** One event for one flow: the envelope rendered for the flow's account, and the flow's `webhook-id` for it. */
function deliveryRequest(
  shop: { id: string; slug: string },
  flow: { id: string; name: string; url: string; permissions: readonly string[] },
  event: StoredEvent,
): DeliveryRequest {
  return {
    about: { shopSlug: shop.slug, flowName: flow.name, record: recordLabel(event.data) },
    shopId: shop.id,
    flowId: flow.id,
    eventId: event.id,
    eventType: event.type,
    deliveryId: deliveryIdFor(flow.id, event.id),
    url: flow.url,
    payload: envelope(event, shop, flow.permissions),
  };
}

/** The relay's work for one outbox event (the current shop's): one request per matching flow; none once the event is gone. */
export async function requestsForEvent(tx: Tx, eventId: string): Promise<DeliveryRequest[]> {
  const event = await storedEvent(tx, eventId);
  if (!event) return [];
  const shop = { id: event.shopId, slug: event.shopSlug };
  return (await matchingFlows(tx, event)).map((flow) => deliveryRequest(shop, flow, event));
}

/**
 * A test-run: a sample event of the flow's trigger type, rendered for what both the flow's account
 * and the person starting it (`viewer`: their permissions, or the operator) may read. The shop's
 * latest real record serves as the sample only when both may read its type; otherwise a synthetic one.
 */
export async function testRunRequest(
  tx: Tx,
  shopId: string,
  flowId: string,
  viewer: readonly string[] | 'operator',
): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const eventType = flow.eventType as EventType;
  const permissions = viewer === 'operator' ? flow.permissions : flow.permissions.filter((permission) => viewer.includes(permission));
  const event = await sampleEvent(tx, eventType, mayReadContent(eventType, permissions) ? SAMPLE_READERS : {});
  return deliveryRequest(await shopIdentity(tx, shopId), { ...flow, permissions }, event);
}

/**
 * A resend of a failed delivery: the same event and `webhook-id`, to the flow's current address.
 * 404 for a delivery of another flow (or a test-run), 409 unless it has failed.
 */
export async function resendRequest(tx: Tx, flowId: string, deliveryId: string): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const [row] = await tx<{ status: string; eventId: string }[]>`
    select d.status, d.event_id from deliveries d
    where d.delivery_id = ${deliveryId} and d.flow_id = ${flowId} and not d.test_run`;
  const event = row && (await storedEvent(tx, row.eventId));
  if (!row || !event) throw new Problem('not-found', `no delivery ${deliveryId} of this flow`);
  if (row.status !== 'failed') throw new Problem('conflict', `only a failed delivery can be resent (this one is ${row.status})`);
  return deliveryRequest({ id: event.shopId, slug: event.shopSlug }, flow, event);
}
