import { createHmac, timingSafeEqual } from 'node:crypto';
import { shopIdentity } from '../access/index.js';
import { canonicalJson, Problem } from '../kernel/index.js';
import { envelope, storedEvent, type EventType, type StoredEvent } from '../events/index.js';
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
}

/**
 * A delivery request with `seal`: an HMAC-SHA256, under the server-side `DELIVERY_REQUEST_KEY`, of
 * every other field. The Temporal frontend is an untrusted transport (docs/security.md): whoever can
 * start a workflow could otherwise have the worker sign any body for any address. The relay, the
 * admin API and the CLI seal what they start; the worker sends nothing whose seal does not verify.
 */
export type Sealed<T extends object> = T & { seal: string };

function sealOf(key: string, fields: object): string {
  return createHmac('sha256', key).update(canonicalJson(fields)).digest('base64url');
}

export function sealDeliveryRequest<T extends DeliveryRequest>(key: string, request: T): Sealed<T> {
  const { seal: _previous, ...fields } = request as T & { seal?: string };
  return { ...(fields as T), seal: sealOf(key, fields) };
}

/** True when `seal` covers exactly the other fields of `request` (extra fields added on the way break it). */
export function hasValidSeal(key: string, request: DeliveryRequest & { seal?: string }): boolean {
  const { seal, ...fields } = request;
  if (typeof seal !== 'string') return false;
  const expected = Buffer.from(sealOf(key, fields));
  const given = Buffer.from(seal);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** One event for one flow: the envelope rendered for the flow's account, and the flow's `webhook-id` for it. */
function deliveryRequest(
  shop: { id: string; slug: string },
  flow: { id: string; url: string; permissions: readonly string[] },
  event: StoredEvent,
): DeliveryRequest {
  return {
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

/** A test-run: a sample event of the flow's trigger type, rendered for the flow's account. */
export async function testRunRequest(tx: Tx, shopId: string, flowId: string): Promise<DeliveryRequest> {
  const flow = await getFlow(tx, flowId);
  const event = await sampleEvent(tx, flow.eventType as EventType, SAMPLE_READERS);
  return deliveryRequest(await shopIdentity(tx, shopId), flow, event);
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
