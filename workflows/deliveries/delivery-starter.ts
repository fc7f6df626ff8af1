import { randomUUID } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type ConnectionLike,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import type { Settings } from '../../config/settings.js';
import { sealDeliveryRequest } from '../../domain/flows/index.js';
import { Problem } from '../../domain/kernel/index.js';
import { deliveryWorkflow, retryNowSignal, UNDELIVERED, type DeliveryInput, type DeliveryResult } from './delivery-workflow.js';
import { DeliveryStatusKey, EventIdKey, EventTypeKey, FlowIdKey, ShopIdKey, ShopSlugKey, TestRunKey } from '../search-attributes.js';
import { temporalClient } from '../../config/temporal-connection.js';

// The schedule as the developer site states it: the API reads workflow code only through a starter.
export { DEFAULT_RETRY_DELAYS_MS, JITTER_RATIO } from './delivery-schedule.js';

/** Where deliveries start, and the server-side key that seals each request (DELIVERY_REQUEST_KEY). */
export interface DeliveryStarter {
  client: Client;
  taskQueue: string;
  requestKey: string;
}

/** The starter of a process's settings on its Temporal connection (the relay's native one, the CLI's). */
export function deliveryStarter(
  connection: ConnectionLike,
  settings: Pick<Settings, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'DELIVERY_REQUEST_KEY' | 'payloadCodecKeys'>,
): DeliveryStarter {
  return {
    client: temporalClient(connection, settings.payloadCodecKeys, settings.TEMPORAL_NAMESPACE),
    taskQueue: settings.TEMPORAL_TASK_QUEUE,
    requestKey: settings.DELIVERY_REQUEST_KEY,
  };
}

/** A delivery request before it is sealed: what the relay, the admin API and the CLI build. */
export type UnsealedDeliveryInput = Omit<DeliveryInput, 'seal'>;

/** The one delivery of an event to a flow (DESIGN.md: `delivery:<flowId>:<eventId>`). */
export function deliveryWorkflowId(flowId: string, eventId: string): string {
  return `delivery:${flowId}:${eventId}`;
}

/**
 * What an operator filters deliveries by in the Temporal Web UI; `DeliveryStatus` starts as
 * `delivering`, `TestRun` tells a flow builder's test-runs from deliveries of real events.
 */
export function searchAttributes(
  input: Pick<DeliveryInput, 'shopId' | 'flowId' | 'eventType' | 'eventId' | 'testRun' | 'about'>,
): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ShopIdKey, value: input.shopId },
    ...(input.about ? [{ key: ShopSlugKey, value: input.about.shopSlug }] : []),
    { key: FlowIdKey, value: input.flowId },
    { key: EventTypeKey, value: input.eventType },
    { key: EventIdKey, value: input.eventId },
    { key: DeliveryStatusKey, value: 'delivering' },
    { key: TestRunKey, value: input.testRun === true },
  ]);
}

/**
 * The run's summary and details in the Temporal UI (user metadata, encrypted by the payload codec
 * like any payload): the flow, the event and its record on one line; the shop and the ids below.
 */
export function runMetadata(input: UnsealedDeliveryInput): { staticSummary: string; staticDetails: string } {
  const { about } = input;
  const kind = input.testRun ? 'test-run of ' : '';
  const record = about?.record ? ` ${about.record}` : '';
  return {
    staticSummary: `${kind}${about ? `${about.flowName}: ` : ''}${input.eventType}${record}`,
    staticDetails: [
      about && `**Shop** ${about.shopSlug}`,
      about && `**Flow** ${about.flowName} (${input.flowId})`,
      `**Event** ${input.eventType} ${input.eventId}`,
      `**Delivery** ${input.deliveryId}`,
    ]
      .filter(Boolean)
      .join('\n'),
  };
}

/** What every start of a delivery carries: the queue, the id, the sealed request, its search attributes and summary. */
function startOptions(starter: DeliveryStarter, workflowId: string, input: UnsealedDeliveryInput) {
  return {
    taskQueue: starter.taskQueue,
    workflowId,
    args: [sealDeliveryRequest(starter.requestKey, input)] as [DeliveryInput],
    typedSearchAttributes: searchAttributes(input),
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
