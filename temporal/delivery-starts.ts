import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { Problem } from '../domain/problems.js';
import type { DeliveryInput, DeliveryResult } from '../workflows/delivery.js';
import { DeliveryStatusKey, EventIdKey, EventTypeKey, FlowIdKey, ShopIdKey } from '../workflows/search-attributes.js';

/** The one delivery of an event to a flow (DESIGN.md: `delivery:<flowId>:<eventId>`). */
export function deliveryWorkflowId(flowId: string, eventId: string): string {
  return `delivery:${flowId}:${eventId}`;
}

/** What an operator filters deliveries by in the Temporal Web UI; `DeliveryStatus` starts as `delivering`. */
export function searchAttributes(input: Pick<DeliveryInput, 'shopId' | 'flowId' | 'eventType' | 'eventId'>): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ShopIdKey, value: input.shopId },
    { key: FlowIdKey, value: input.flowId },
    { key: EventTypeKey, value: input.eventType },
    { key: EventIdKey, value: input.eventId },
    { key: DeliveryStatusKey, value: 'delivering' },
  ]);
}

/**
 * Starts the delivery workflow. "Already started" — running or closed, since the relay starts with
 * REJECT_DUPLICATE — means a relay (or an earlier attempt of this one) got there first, which is
 * success: a delivery that finished in the milliseconds before a relay crashed is not sent again.
 * `eagerStart` (only for a client on a `NativeConnection` shared with a worker of the task queue)
 * hands the first workflow task straight to that worker in the start's answer.
 */
export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: DeliveryInput,
  { eagerStart = false } = {},
): Promise<'started-eagerly' | 'started' | 'already-started'> {
  try {
    const handle = await client.workflow.start('deliveryWorkflow', {
      taskQueue,
      workflowId: deliveryWorkflowId(input.flowId, input.eventId),
      args: [input],
      typedSearchAttributes: searchAttributes(input),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      requestEagerStart: eagerStart,
    });
    return handle.eagerlyStarted ? 'started-eagerly' : 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already-started';
  }
}

/** A flow builder's test-run: the same workflow, one attempt, awaited (`flow-test:<flowId>:<uuid>`). */
export async function runTestDelivery(client: Client, taskQueue: string, input: Omit<DeliveryInput, 'testRun' | 'retryDelaysMs'>): Promise<{ workflowId: string; result: DeliveryResult }> {
  const full: DeliveryInput = { ...input, testRun: true, retryDelaysMs: [] };
  const workflowId = `flow-test:${input.flowId}:${randomUUID()}`;
  const result = await client.workflow.execute('deliveryWorkflow', {
    taskQueue,
    workflowId,
    args: [full],
    typedSearchAttributes: searchAttributes(full),
    workflowExecutionTimeout: '1 minute',
  });
  return { workflowId, result: result as DeliveryResult };
}

/** A new run of a closed delivery: the same workflow id and `webhook-id`, new attempts. 409 while one still runs. */
export async function resendDelivery(client: Client, taskQueue: string, input: DeliveryInput): Promise<string> {
  const workflowId = deliveryWorkflowId(input.flowId, input.eventId);
  try {
    // ALLOW_DUPLICATE: a closed delivery may run again; a running one cannot ("already started").
    await client.workflow.start('deliveryWorkflow', { taskQueue, workflowId, args: [input], typedSearchAttributes: searchAttributes(input), workflowIdReusePolicy: 'ALLOW_DUPLICATE' });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw new Problem('conflict', 'this delivery is still running');
    throw error;
  }
  return workflowId;
}
