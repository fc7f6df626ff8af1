import type { Sql } from '../../db/client.js';
import { markDeliveryFailed, switchOffHttpSend } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';

/** Database steps of flow runs. */
export function createFlowActivities(deps: { sql: Sql }) {
  return {
    /** The receiver answered 410 Gone: no more deliveries to this HTTP-send block until it is switched on again. */
    async switchOffHttpSend(input: { shopId: string; flowId: string; reason: string }): Promise<void> {
      await withShop(deps.sql, input.shopId, (tx) => switchOffHttpSend(tx, input.flowId, input.reason));
    },

    /** The retry schedule ran out: the delivery shows as failed, and the admin may resend it. */
    async markDeliveryFailed(input: { shopId: string; deliveryId: string }): Promise<void> {
      await withShop(deps.sql, input.shopId, (tx) => markDeliveryFailed(tx, input.deliveryId));
    },
  };
}

export type FlowActivities = ReturnType<typeof createFlowActivities>;
