import { Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { Sql } from '../../db/client.js';
import { withShop } from '../../domain/kernel/index.js';
import { deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';
import { loadSettings } from '../../config/settings.js';
import { temporalClient } from '../../config/temporal-connection.js';

/**
 * Where the events that did not arrive stand: still in the outbox, or (for up to `sample` of the
 * others) their delivery workflow's status (`RUNNING`: still retrying, so late rather than lost;
 * `COMPLETED` or `FAILED` with no receipt, or no workflow at all: lost).
 */
export async function whereUndelivered(
  sql: Sql,
  shop: { shopId: string; flowId: string },
  temporalAddress: string,
  eventIds: string[],
  sample = 200,
): Promise<Record<string, number>> {
  if (eventIds.length === 0) return {};
  const queued = new Set(
    (
      await withShop(
        sql,
        shop.shopId,
        (tx) => tx<{ eventId: string }[]>`select event_id from event_queue where event_id = any(${eventIds})`,
      )
    ).map(({ eventId }) => eventId),
  );
  const where: Record<string, number> = { 'in the outbox': queued.size };
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = temporalClient(connection, loadSettings().payloadCodecKeys);
    for (const eventId of eventIds.filter((id) => !queued.has(id)).slice(0, sample)) {
      const status = await client.workflow
        .getHandle(deliveryWorkflowId(shop.flowId, eventId))
        .describe()
        .then(
          (description) => `workflow ${description.status.name}`,
          (error: unknown) => (error instanceof WorkflowNotFoundError ? 'no workflow' : 'workflow not described'),
        );
      where[status] = (where[status] ?? 0) + 1;
    }
  } finally {
    await connection.close();
  }
  return where;
}
