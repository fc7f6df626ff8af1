import { shopIdentity } from '../access/index.js';
import { Problem, seal, type Sealed } from '../kernel/index.js';
import { envelope, EVENT_READ_PERMISSIONS, storedEvent, type EventType, type StoredEvent } from '../events/index.js';
import { mayReadContent } from './deliveries.js';
import { testEvent } from './flow-samples.js';
import { deliveryIdFor, getFlow, matchingFlows, type Flow } from './flows.js';
import { recordLabel } from './record-labels.js';
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

/** The shop's slug, the flow's name and what the record is known by (record-labels.ts; null when the event's data has nothing of it). */
export interface DeliveryAbout {
  shopSlug: string;
  flowName: string;
  record: string | null;
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
    about: { shopSlug: shop.slug, flowName: flow.name, record: recordLabel(event.type, event.data) },
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

/** The builder's unsaved edits a test-run uses instead of the saved flow's (the address checked by the caller, as on save). */
export type TestRunDraft = Partial<Pick<Flow, 'name' | 'url' | 'eventType' | 'pageId' | 'permissions'>>;

/**
 * A test-run: a test event of the flow's trigger type (made up, or the record `recordId` names),
 * rendered for what both the flow's account and the person starting it (`viewer`: their permissions,
 * or the operator) may read. Choosing a real record needs the type's read permissions on both sides
 * (403 `insufficient-permission` otherwise), as the record is then what is sent and shown. `draft`
 * is the flow as the builder shows it, unsaved changes included: what is tested is what is on screen.
 */
export async function testRunRequest(
  tx: Tx,
  shopId: string,
  flowId: string,
  viewer: readonly string[] | 'operator',
  recordId?: string,
  draft: TestRunDraft = {},
): Promise<DeliveryRequest> {
  const edits = Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== undefined)) as TestRunDraft;
  const flow = { ...(await getFlow(tx, flowId)), ...edits };
  const permissions = viewer === 'operator' ? flow.permissions : flow.permissions.filter((permission) => viewer.includes(permission));
  if (recordId !== undefined && !mayReadContent(flow.eventType, permissions)) {
    const needed = EVENT_READ_PERMISSIONS[flow.eventType as EventType].join(' and ');
    throw new Problem('insufficient-permission', `a test-run with a real record needs ${needed}, for you and for the flow's account`);
  }
  const event = await testEvent(tx, flow, recordId);
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
