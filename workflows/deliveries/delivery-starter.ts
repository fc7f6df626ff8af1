import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type ConnectionLike,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Settings } from '../../config/settings.js';
import { sealDeliveryRequest } from '../../domain/flows/index.js';
import { Problem } from '../../domain/kernel/index.js';
import { deliveryWorkflow, retryNowSignal, UNDELIVERED, type DeliveryInput, type DeliveryResult } from './delivery-workflow.js';
import { deliveryWorkflowId, runMetadata, searchAttributes, type UnsealedDeliveryInput } from './delivery-run-options.js';
import { temporalClient } from '../../config/temporal-connection.js';
import { shopFairness } from '../shop-fairness.js';

// The schedule as the developer site states it: the API reads workflow code only through a starter.
export { DEFAULT_RETRY_DELAYS_MS, JITTER_RATIO } from './delivery-workflow.js';

/** Where deliveries start, and the server-side key that seals each request (WORKFLOW_SEAL_KEY). */
export interface DeliveryStarter {
  client: Client;
  taskQueue: string;
  sealKey: string;
}

/** The starter of a process's settings on its Temporal connection (the relay's native one, the CLI's). */
export function deliveryStarter(
  connection: ConnectionLike,
  settings: Pick<Settings, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'WORKFLOW_SEAL_KEY' | 'payloadCodecKeys'>,
): DeliveryStarter {
  return {
    client: temporalClient(connection, settings.payloadCodecKeys, settings.TEMPORAL_NAMESPACE),
    taskQueue: settings.TEMPORAL_TASK_QUEUE,
    sealKey: settings.WORKFLOW_SEAL_KEY,
  };
}

// Workflow code, so that a recovery batch gives its children the same id, search attributes and summary.
export { deliveryWorkflowId, runMetadata, searchAttributes, type UnsealedDeliveryInput } from './delivery-run-options.js';

/** What every start of a delivery carries: the queue, the id, the sealed request, its search attributes and summary. */
function startOptions(starter: DeliveryStarter, workflowId: string, input: UnsealedDeliveryInput) {
  return {
    taskQueue: starter.taskQueue,
    workflowId,
    args: [sealDeliveryRequest(starter.sealKey, input, workflowId)] as [DeliveryInput],
    typedSearchAttributes: searchAttributes(input),
    priority: shopFairness(input.shopId),
    ...runMetadata(input),
  };
}

/**
 * Starts the delivery workflow. "Already started" — running or closed, since the relay starts with
 * REJECT_DUPLICATE — means a relay (or an earlier attempt of this one) got there first, which is
 * success: a delivery that finished in the milliseconds before a relay crashed is not sent again.
 * `eagerStart` (only for a client on a `NativeConnection` shared with a worker of the task queue)
 * hands the first workflow task straight to that worker in the start's answer.
 */
export async function startDelivery(
  starter: DeliveryStarter,
  input: UnsealedDeliveryInput,
  { eagerStart = false } = {},
): Promise<'started-eagerly' | 'started' | 'already-started'> {
  try {
    const handle = await starter.client.workflow.start(deliveryWorkflow, {
      ...startOptions(starter, deliveryWorkflowId(input.flowId, input.eventId), input),
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
export async function runTestDelivery(
  starter: DeliveryStarter,
  input: Omit<UnsealedDeliveryInput, 'testRun' | 'retryDelaysMs'>,
): Promise<{ workflowId: string; result: DeliveryResult }> {
  const full: UnsealedDeliveryInput = { ...input, testRun: true, retryDelaysMs: [] };
  const workflowId = `flow-test:${input.flowId}:${randomUUID()}`;
  const handle = await starter.client.workflow.start(deliveryWorkflow, {
    ...startOptions(starter, workflowId, full),
    workflowExecutionTimeout: '1 minute',
  });
  return { workflowId, result: await deliveryOutcome(handle) };
}

/** How a delivery run ended, delivered (Completed) or not (Failed with its result); any other failure is thrown. */
export async function deliveryOutcome(handle: WorkflowHandle<typeof deliveryWorkflow>): Promise<DeliveryResult> {
  try {
    return await handle.result();
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === UNDELIVERED && cause.details?.[0]) return cause.details[0] as DeliveryResult;
    throw error;
  }
}

/** A new run of a closed delivery: the same workflow id and `webhook-id`, new attempts. 409 while one still runs. */
export async function resendDelivery(starter: DeliveryStarter, input: UnsealedDeliveryInput): Promise<string> {
  const workflowId = deliveryWorkflowId(input.flowId, input.eventId);
  try {
    // ALLOW_DUPLICATE: a closed delivery may run again; a running one cannot ("already started").
    await starter.client.workflow.start(deliveryWorkflow, {
      ...startOptions(starter, workflowId, input),
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw new Problem('conflict', 'this delivery is still running');
    throw error;
  }
  return workflowId;
}

/** Ends a retrying delivery's wait: its next attempt is made now. 409 when the run is no longer there to ask (it just ended). */
export async function retryDeliveryNow(starter: DeliveryStarter, workflowId: string): Promise<void> {
  try {
    await starter.client.workflow.getHandle(workflowId).signal(retryNowSignal);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new Problem('conflict', 'this delivery is no longer waiting: it has just ended');
    throw error;
  }
}
