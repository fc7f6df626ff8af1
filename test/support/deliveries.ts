import { randomUUID } from 'node:crypto';
import { ulid } from 'ulidx';
import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';
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
