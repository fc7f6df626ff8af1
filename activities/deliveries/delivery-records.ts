import type { Sql } from '../../db/client.js';
import { markDeliveryFailed, noteNextAttempt, switchOffHttpSend } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type { WebhookAttemptInput } from './webhook-send.js';
import { observeDeliveryFinished } from '../../telemetry/delivery-metrics.js';

/** Database steps of a delivery, each on the delivery's sealed request (checked by activities/sealed-activities.ts). */
export function createDeliveryRecordActivities(deps: { sql: Sql }) {
  return {
    /** The receiver answered 410 Gone: no more deliveries to this HTTP-send block until it is switched on again. */
    async switchOffHttpSend(delivery: WebhookAttemptInput, reason: string): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => switchOffHttpSend(tx, delivery.flowId, reason));
    },

    /** A retrying delivery's next attempt, for the delivery history: when, and how many are left counting it. */
    async noteNextAttempt(delivery: WebhookAttemptInput, next: { at: string; attemptsLeft: number }): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => noteNextAttempt(tx, delivery.deliveryId, next));
    },

    /** The retry schedule ran out: the delivery shows as failed, and the admin may resend it. */
    async markDeliveryFailed(delivery: WebhookAttemptInput): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => markDeliveryFailed(tx, delivery.deliveryId));
      observeDeliveryFinished('failed', delivery.testRun ?? false);
    },
  };
}

export type DeliveryRecordActivities = ReturnType<typeof createDeliveryRecordActivities>;
