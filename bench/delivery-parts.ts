import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import type { Sql } from '../db/client.js';
import { deliveryWorkflowId } from '../workflows/deliveries/delivery-starter.js';

/** Where one delivery's time went, in ms: commit to its workflow's start, on to its first task's start, on to the send's beginning, the send. */
export interface DeliveryParts {
  toStartMs: number;
  toTaskMs: number;
  toSendMs: number;
  sendMs: number;
}

/**
 * The parts of the delivery of `eventId` to `flowId`, committed and received at the given times, from
 * its workflow's history (its start; its first task's start: at once where the relay's worker took
 * it eagerly) and its first attempt's record (when the send began, on the attempt's clock). `owner`
 * reads every shop's attempts.
 */
export async function deliveryParts(
  client: Client,
  owner: Sql,
  { flowId, eventId, committedAt, receivedAt }: { flowId: string; eventId: string; committedAt: number; receivedAt: number },
): Promise<DeliveryParts> {
  const events = (await client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)).fetchHistory()).events ?? [];
  const timeOf = (has: (event: (typeof events)[number]) => unknown) => optionalTsToMs(events.find(has)?.eventTime) ?? NaN;
  const start = timeOf((event) => event.workflowExecutionStartedEventAttributes);
  const firstTask = timeOf((event) => event.workflowTaskStartedEventAttributes);
  const [attempt] = await owner<{ attemptedAt: Date }[]>`
    select a.attempted_at as "attemptedAt" from delivery_attempts a join deliveries d using (delivery_id)
    where d.event_id = ${eventId} and d.flow_id = ${flowId} order by a.attempted_at limit 1`;
  const sent = attempt?.attemptedAt.getTime() ?? NaN;
  return { toStartMs: start - committedAt, toTaskMs: firstTask - start, toSendMs: sent - firstTask, sendMs: receivedAt - sent };
}
