import { randomUUID } from 'node:crypto';
import { ulid } from 'ulidx';
import { expect } from 'vitest';
import type { ReceivedRequest, WebhookReceiver } from '../../simulators/webhook-receiver.js';
import {
  deliveryOutcome,
  deliveryWorkflowId,
  startDelivery,
  type UnsealedDeliveryInput,
} from '../../workflows/deliveries/delivery-starter.js';
import type { DeliveryResult } from '../../workflows/deliveries/delivery-workflow.js';
import type { ShopFixture } from './fixtures.js';
import type { TestTemporal } from './temporal.js';

/**
 * One delivery of a new `product.updated` event to `flowId`, at an inbox of the receiver that answers
 * `status`, started as the relay starts it (sealed, with its search attributes and summary) and run
 * to its end, delivered or not. No retries unless `input` says otherwise.
 */
export async function deliverAnswered(
  parts: { temporal: TestTemporal; receiver: WebhookReceiver; shop: ShopFixture },
  flowId: string,
  status: number,
  input: Partial<UnsealedDeliveryInput> = {},
): Promise<DeliveryResult> {
  const inbox = randomUUID();
  parts.receiver.respondWith(inbox, [{ status }]);
  const eventId = `evt_${ulid()}`;
  await startDelivery(parts.temporal.deliveries, {
    shopId: parts.shop.shopId,
    flowId,
    eventId,
    eventType: 'product.updated',
    deliveryId: `msg_${ulid()}`,
    url: parts.receiver.url(inbox),
    payload: JSON.stringify({ id: eventId }),
    retryDelaysMs: [],
    about: { shopSlug: parts.shop.slug, flowName: 'Test flow', record: null },
    ...input,
  });
  return deliveryOutcome(parts.temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)));
}

/** The id of the event envelope a receiver got. */
export const envelopeId = (request: ReceivedRequest): string => (JSON.parse(request.body) as { id: string }).id;

/**
 * The requests `inbox` got, grouped by event, once every event of `ids` is among them. A delivery's own
 * second attempt (after a first that a loaded machine let time out) is one more request of the same
 * event, so n requests are not yet n events: waiting for a count of requests can end one event short.
 */
export async function whenEventsArrived(
  receiver: WebhookReceiver,
  inbox: string,
  ids: readonly string[],
  timeoutMs = 120_000,
): Promise<Map<string, ReceivedRequest[]>> {
  const byEvent = () => Map.groupBy(receiver.received(inbox), envelopeId);
  await expect.poll(() => ids.filter((id) => !byEvent().has(id)), { timeout: timeoutMs }).toEqual([]);
  return byEvent();
}
