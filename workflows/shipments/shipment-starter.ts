import {
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
  type WorkflowHandleWithStartDetails,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import { Problem, seal, type Sealed } from '../../domain/kernel/index.js';
import type { CarrierMilestone, CarrierOrderRequest, OpenedCarrierConnection, ShipmentDetail } from '../../domain/shipments/index.js';
import type { ShipmentCancelInput, ShipmentKeys, SealedPush } from '../../activities/shipments/shipment-activities.js';
import { CarrierKey, OrderIdKey, ShipmentIdKey, ShopIdKey } from '../search-attributes.js';
import { shopFairness } from '../shop-fairness.js';
import {
  shipmentCancelWorkflow,
  shipmentMilestoneSignal,
  shipmentPushUpdate,
  shipmentTrackingWorkflow,
  SHIPMENT_NOT_DONE,
  trackingWorkflowId,
  type ShipmentCancelResult,
  type ShipmentPushResult,
  type ShipmentTrackingInput,
} from './shipment-workflows.js';

/**
 * The client side of the shipment workflows: the API starts a shipment's workflow with its push and
 * awaits the push, starts a cancel and awaits it, and a carrier callback signals the tracking.
 * Every input and signal is sealed.
 *
 * Where the API process hosts a worker on the shipments' queue (docs/behaviour/shipments.md), a push or cancel
 * starts on it eagerly and its outcome comes back in the process; otherwise (no such worker, not yet
 * connected, or full) through the server: the push by update-with-start, the cancel by its result.
 */

/** Where the API starts shipment workflows, how long it waits for them, and the tracking's poll interval. */
export interface ShipmentStarter {
  client: Client;
  /** `TEMPORAL_TASK_QUEUE`; shipment workflows run on `shipmentTaskQueue` of it. */
  taskQueue: string;
  waitMs: number;
  pollEveryMs: number;
  /** `WORKFLOW_SEAL_KEY`: seals every workflow input and signal (domain/kernel/seals.ts). */
  sealKey: string;
  /** This process's worker on the shipments' queue, once it runs. */
  eager?: () => EagerShipments | undefined;
}

/** A worker in this process on the shipments' queue: a client on its connection, and where its sink hands outcomes. */
export interface EagerShipments {
  client: Client;
  outcomes: ShipmentOutcomes;
}

/**
 * Where an API process waits for the outcome of a push or cancel it started eagerly on its own
 * worker (docs/behaviour/shipments.md): the request expects the run's outcome by workflow id before the start, and
 * the worker's `shipmentOutcome` sink settles it. An outcome nobody waits for (a run another process
 * started, a request that gave up) is dropped: the workflow goes on as it would.
 *
 * A push's request also hands over the carrier connection it opened (docs/behaviour/shipments.md): the run's first
 * carrier call, on this process's worker, takes it instead of reading it again. It stays in the
 * process's memory, never in the run's input or history, and goes with the expectation.
 */
export class ShipmentOutcomes {
  readonly #expected = new Map<string, { settle: (outcome: unknown) => void; connection?: OpenedCarrierConnection }>();

  /** The outcome of run `workflowId`, once this process's worker knows it; `forget` when no longer waiting. */
  expect<Outcome>(workflowId: string, connection?: OpenedCarrierConnection): { outcome: Promise<Outcome>; forget: () => void } {
    const outcome = new Promise<Outcome>((resolve) =>
      this.#expected.set(workflowId, { settle: resolve as (outcome: unknown) => void, ...(connection ? { connection } : {}) }),
    );
    return { outcome, forget: () => this.#expected.delete(workflowId) };
  }

  settle(workflowId: string, outcome: unknown): void {
    this.#expected.get(workflowId)?.settle(outcome);
    this.#expected.delete(workflowId);
  }

  /** The connection the request of run `workflowId` handed over, once: a retried call reads it again. */
  takeConnection(workflowId: string): OpenedCarrierConnection | undefined {
    const expected = this.#expected.get(workflowId);
    const connection = expected?.connection;
    delete expected?.connection;
    return connection;
  }

  /** Requests waiting for an outcome now (with the connection they handed over, if not yet taken). */
  get waiting(): number {
    return this.#expected.size;
  }
}

/**
 * The queue of the shipment workflows: apart from deliveries and test-runs, so that an API process's
 * worker takes only shipments. Runs started before it stay on `taskQueue`, which workers still poll.
 */
export function shipmentTaskQueue(taskQueue: string): string {
  return `${taskQueue}-shipments`;
}

const NO_ANSWER = Symbol('no answer');

/** The outcome, or NO_ANSWER once the API's wait is over (the workflow goes on). */
async function bounded<T>(outcome: Promise<T>, waitMs: number): Promise<T | typeof NO_ANSWER> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof NO_ANSWER>((resolve) => (timer = setTimeout(() => resolve(NO_ANSWER), waitMs)));
  try {
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A run's result; a cancel that did not happen closes as Failed with its outcome as the failure's details. */
async function outcomeOf<T>(handle: WorkflowHandle): Promise<T> {
  return (handle.result() as Promise<T>).catch((error: unknown) => {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === SHIPMENT_NOT_DONE && cause.details?.[0]) return cause.details[0] as T;
    throw error;
  });
}

/**
 * `POST /shipments` after its row is committed: the shipment's workflow (`shipment:<id>`) started
 * with the push, and the push's outcome asked in the same call (update-with-start: one workflow and
 * one round trip per push), awaited for `waitMs`. Rejected: 409 `conflict` with the carrier's reason;
 * no answer in time or none at all: 503 `carrier-unavailable` (the spec: read `GET
 * /shipments?orderId=` before retrying).
 */
export async function pushShipment(
  starter: ShipmentStarter,
  keys: ShipmentKeys & {
    connectionId: string;
    applicationId: string | null;
    request: CarrierOrderRequest;
    /** Opened by the request: handed to the run when it starts on this process's worker. */
    connection?: OpenedCarrierConnection;
  },
): Promise<ShipmentDetail> {
  const workflowId = trackingWorkflowId(keys.shipmentId);
  const push: Omit<SealedPush, 'seal'> = {
    shopId: keys.shopId,
    orderId: keys.orderId,
    ...(keys.orderCode ? { orderCode: keys.orderCode } : {}),
    connectionId: keys.connectionId,
    carrier: keys.carrier,
    applicationId: keys.applicationId,
    request: keys.request,
    pollEveryMs: starter.pollEveryMs,
  };
  const tracking = trackingStart(starter, keys);
  const options = {
    ...tracking,
    args: [{ ...tracking.args[0], push: seal(starter.sealKey, push, workflowId) }] as [ShipmentTrackingInput],
    // A new shipment has no workflow yet; were one running, the update finds it.
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
  };
  const result = await awaitOutcome<ShipmentPushResult>(starter, workflowId, {
    ...(keys.connection ? { connection: keys.connection } : {}),
    start: (client) => client.workflow.start(shipmentTrackingWorkflow, { ...options, requestEagerStart: true }),
    answer: (handle) => handle.executeUpdate(shipmentPushUpdate, { updateId: 'push' }),
    otherwise: () =>
      starter.client.workflow.executeUpdateWithStart(shipmentPushUpdate, {
        updateId: 'push',
        startWorkflowOperation: new WithStartWorkflowOperation(shipmentTrackingWorkflow, options),
      }),
  });
  return pushAnswer(result, starter.waitMs, keys.orderId);
}

/** What a push answers: the shipment accepted, or the problem for what became of it. */
function pushAnswer(result: ShipmentPushResult | typeof NO_ANSWER, waitMs: number, orderId: string): ShipmentDetail {
  if (result === NO_ANSWER)
    throw new Problem(
      'carrier-unavailable',
      `the carrier has not answered within ${waitMs / 1000} s; the push goes on: send the same request with the same Idempotency-Key for its outcome, or read GET /shipments?orderId=${orderId} before retrying`,
    );
  if (result.outcome === 'rejected') throw new Problem('conflict', `the carrier refused the shipment: ${result.reason}`);
  if (result.outcome === 'unavailable')
    throw new Problem('carrier-unavailable', `the shipment was not created at the carrier: ${result.reason}`);
  return result.shipment;
}

/**
 * A push sent again with the Idempotency-Key and body of one that answered 503: what became of that
 * push (`shipment:<shipmentId>`), never a second push. While the run goes on, its `push` update answers
 * again (awaited for `waitMs` while the carrier is silent); a refused or failed push closed the run as
 * Failed with its outcome; a run that completed, or continued as new, had pushed (`current` reads the
 * shipment). No run at all (the first request failed before starting one): 503 again.
 */
export async function retriedPush(
  starter: ShipmentStarter,
  keys: { shipmentId: string; orderId: string },
  current: () => Promise<ShipmentDetail | undefined>,
): Promise<ShipmentDetail> {
  const handle = starter.client.workflow.getHandle(trackingWorkflowId(keys.shipmentId));
  const accepted = async (): Promise<ShipmentPushResult> => {
    const shipment = await current();
    return shipment ? { outcome: 'accepted', shipment } : { outcome: 'unavailable', reason: 'the shipment is gone' };
  };
  const outcome = async (): Promise<ShipmentPushResult | typeof NO_ANSWER> => {
    const { status } = await handle.describe();
    if (status.name === 'COMPLETED') return accepted();
    // Failed: its outcome is the failure's details; closed any other way (terminated), an error.
    if (status.name !== 'RUNNING') return outcomeOf<ShipmentPushResult>(handle);
    // A run continued as new has no push of its own: its validator refuses the update.
    const update = handle.executeUpdate(shipmentPushUpdate, { updateId: 'push' }).catch((error: unknown) => {
      if (error instanceof WorkflowUpdateFailedError) return accepted();
      throw error;
    });
    return bounded(update, starter.waitMs);
  };
  try {
    return pushAnswer(await outcome(), starter.waitMs, keys.orderId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return pushAnswer(NO_ANSWER, starter.waitMs, keys.orderId);
    throw error;
  }
}

/** `POST /shipments/{id}/cancel` after the request is counted: `shipment-cancel:<id>:<n>`, awaited for `waitMs`. */
export async function cancelShipment(
  starter: ShipmentStarter,
  keys: ShipmentKeys & { request: number },
  input: Omit<ShipmentCancelInput, 'seal'>,
): Promise<ShipmentDetail> {
  const workflowId = `shipment-cancel:${keys.shipmentId}:${keys.request}`;
  const options = startOptions(starter, 'cancel', workflowId, input, keys);
  const result = await awaitOutcome<ShipmentCancelResult>(starter, workflowId, {
    start: (client) => client.workflow.start(shipmentCancelWorkflow, { ...options, requestEagerStart: true }),
    answer: outcomeOf,
    otherwise: async () => outcomeOf(await starter.client.workflow.start(shipmentCancelWorkflow, options)),
  });
  if (result === NO_ANSWER)
    throw new Problem(
      'carrier-unavailable',
      `the carrier has not answered the cancel within ${starter.waitMs / 1000} s; read the shipment again before retrying`,
    );
  if (result.outcome === 'not-cancellable') throw new Problem('shipment-not-cancellable', `the carrier refuses: ${result.reason}`);
  if (result.outcome === 'unavailable') throw new Problem('carrier-unavailable', `the shipment was not cancelled: ${result.reason}`);
  return result.shipment;
}

/**
 * A run's outcome within `waitMs`: started eagerly on this process's worker and handed over by its
 * sink when the worker has a free slot; else `answer`ed through the server (the start was not eager);
 * `otherwise` without a worker here. The expectation is dropped once the wait ends either way.
 */
async function awaitOutcome<Outcome>(
  starter: ShipmentStarter,
  workflowId: string,
  way: {
    /** Handed to the run's first carrier call when it starts on this process's worker. */
    connection?: OpenedCarrierConnection;
    /** With `requestEagerStart`: taken up when the worker sharing the client's connection has a free slot. */
    start: (client: Client) => Promise<WorkflowHandleWithStartDetails>;
    answer: (handle: WorkflowHandle) => Promise<Outcome>;
    otherwise: () => Promise<Outcome>;
  },
): Promise<Outcome | typeof NO_ANSWER> {
  const eager = starter.eager?.();
  if (!eager) return bounded(way.otherwise(), starter.waitMs);
  // Expected before the start: the worker may settle it before the start's answer is read.
  const expected = eager.outcomes.expect<Outcome>(workflowId, way.connection);
  const started = async () => {
    const handle = await way.start(eager.client);
    return handle.eagerlyStarted ? expected.outcome : way.answer(handle);
  };
  try {
    return await bounded(started(), starter.waitMs);
  } finally {
    expected.forget();
  }
}

/**
 * A shipment run's summary and details in the Temporal UI (user metadata, encrypted by the payload
 * codec): what it does, the order's code, the carrier and the tracking code when known.
 */
export function runMetadata(kind: 'cancel' | 'tracking', keys: ShipmentKeys): { staticSummary: string; staticDetails: string } {
  const order = `order ${keys.orderCode ?? keys.orderId}`;
  const code = keys.trackingCode ? ` ${keys.trackingCode}` : '';
  return {
    staticSummary: `${kind} of ${order} at ${keys.carrier}${code}`,
    staticDetails: [
      `**Shipment** ${keys.shipmentId}`,
      `**Order** ${keys.orderCode ?? ''} (${keys.orderId})`,
      `**Shop** ${keys.shopId}`,
    ].join('\n'),
  };
}

function searchAttributes(keys: ShipmentKeys): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ShopIdKey, value: keys.shopId },
    { key: ShipmentIdKey, value: keys.shipmentId },
    { key: OrderIdKey, value: keys.orderId },
    { key: CarrierKey, value: keys.carrier },
  ]);
}

/** What starts and signals a tracking workflow: the starter without the API's wait. */
export type TrackingStarter = Omit<ShipmentStarter, 'waitMs'>;

/**
 * What every start of a shipment workflow carries: the queue, the id, the input sealed for that id
 * (domain/kernel/seals.ts), the shipment's search attributes and the run's summary.
 */
function startOptions<Input extends object>(
  starter: TrackingStarter,
  kind: 'cancel' | 'tracking',
  workflowId: string,
  input: Input,
  keys: ShipmentKeys,
) {
  return {
    taskQueue: shipmentTaskQueue(starter.taskQueue),
    workflowId,
    args: [seal(starter.sealKey, input, workflowId)] as [Sealed<Input>],
    typedSearchAttributes: searchAttributes(keys),
    priority: shopFairness(keys.shopId),
    ...runMetadata(kind, keys),
  };
}

const trackingStart = (starter: TrackingStarter, keys: ShipmentKeys) =>
  startOptions(
    starter,
    'tracking',
    trackingWorkflowId(keys.shipmentId),
    { shopId: keys.shopId, shipmentId: keys.shipmentId, pollEveryMs: starter.pollEveryMs } satisfies Omit<ShipmentTrackingInput, 'seal'>,
    keys,
  );

/** A carrier callback: a signal to the shipment's tracking workflow, started if it is not running (signal-with-start). */
export async function signalMilestone(starter: TrackingStarter, keys: ShipmentKeys, milestone: CarrierMilestone): Promise<void> {
  await starter.client.workflow.signalWithStart(shipmentTrackingWorkflow, {
    ...trackingStart(starter, keys),
    signal: shipmentMilestoneSignal,
    signalArgs: [seal(starter.sealKey, milestone, trackingWorkflowId(keys.shipmentId))],
  });
}
