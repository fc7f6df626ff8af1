import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  type Sinks,
} from '@temporalio/workflow';
import type {
  CARRIER_FAILURE_TYPES as CarrierFailureTypes,
  CarrierActivities,
  PushActivities,
  SealedMilestone,
  ShipmentCancelInput,
  ShipmentDetail,
  SealedPush,
  ShipmentRecordActivities,
  TrackingKeys,
} from '../../activities/shipments/shipment-activities.js';
import type { CarrierOrder, ShipmentState } from '../../domain/shipments/index.js';
import { ShipmentStatusKey } from '../search-attributes.js';

/**
 * The shipment workflows (DESIGN.md, Shipments; decision 0257): one workflow per shipment, started by
 * the push, which it makes first (the API awaits it as an update, for a bounded time) and then tracks
 * the shipment, fed by callback signals; a cancel, awaited by the API the same way. Carrier calls and
 * database steps are activities; credentials never enter the history.
 */

/**
 * A create or cancel: three attempts over a few seconds, the API is waiting. Local activities: the
 * worker running the workflow makes the call and records the answer as a marker, without a trip
 * through the server's task queues (a push is awaited by its HTTP request). A worker that dies in
 * the middle leaves no marker, and its successor calls again: create and cancel are idempotent.
 */
const carrierCalls = proxyLocalActivities<CarrierActivities & PushActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});
/** The reconciliation's look-ups and the tracking polls: patient, the API no longer waits. */
const patientCalls = proxyActivities<CarrierActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 12 },
});
/** Database steps retry until the database answers (local too: a longer wait becomes a timer). */
const records = proxyLocalActivities<ShipmentRecordActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * The worker running a push or cancel hears its outcome the moment the workflow knows it (decision
 * 0259): an API process that started the run eagerly on its own worker answers the request from it,
 * before the task's completion reaches the server. Not a command: histories are unchanged by it.
 */
export interface ShipmentOutcomeSinks extends Sinks {
  shipmentOutcome: { settled(outcome: ShipmentPushResult | ShipmentCancelResult): void };
}
const { shipmentOutcome } = proxySinks<ShipmentOutcomeSinks>();

export const shipmentMilestoneSignal = defineSignal<[SealedMilestone]>('milestone');
/** Read the shipment again (a cancel was recorded): the tracking may be over. */
export const shipmentRecheckSignal = defineSignal('recheck');

export type ShipmentPushResult =
  { outcome: 'accepted'; shipment: ShipmentDetail } | { outcome: 'rejected'; reason: string } | { outcome: 'unavailable'; reason: string };

/**
 * The failure type of a push or cancel the carrier refused or never answered: the run closes as Failed,
 * in Temporal's own colours, with the carrier's words as its message and the outcome as its details.
 */
export const SHIPMENT_NOT_DONE = 'ShipmentNotDone';
const NOT_DONE_MESSAGES = {
  rejected: 'the carrier refused the shipment',
  unavailable: 'the carrier did not answer',
  'not-cancellable': 'the carrier refused to cancel',
} as const;

/** The failure that closes a run whose push or cancel did not happen: Failed, with the carrier's words and the outcome. */
function notDoneFailure(outcome: { outcome: keyof typeof NOT_DONE_MESSAGES; reason: string }): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${NOT_DONE_MESSAGES[outcome.outcome]}: ${outcome.reason}`,
    type: SHIPMENT_NOT_DONE,
    nonRetryable: true,
    details: [outcome],
  });
}

/** One reconciliation round is `patientCalls`' dozen attempts; rounds repeat for a day before a push is given up. */
const RECONCILE_ROUNDS = 144;
const RECONCILE_PAUSE = '10 minutes';
const DEFAULT_RECHECK_AFTER_MS = 60_000;

/**
 * The carrier order of a push (never two for one shipment: our id is the carrier's client code): the
 * create, and when its answer is lost a reconciliation by our id; the acceptance recorded, or a
 * refused or failed push dropped.
 */
async function pushToCarrier(input: SealedPush): Promise<ShipmentPushResult> {
  let order: CarrierOrder | null;
  let recorded: ShipmentDetail | null | undefined;
  try {
    ({ order, shipment: recorded } = await carrierCalls.pushAtCarrier(input));
  } catch (error) {
    const failure = carrierFailure(error);
    if (failure?.type === CARRIER_FAILURE_TYPES.rejected || failure?.type === CARRIER_FAILURE_TYPES.unauthorized) {
      await records.dropRejected(input);
      return { outcome: failure.type === CARRIER_FAILURE_TYPES.rejected ? 'rejected' : 'unavailable', reason: failure.reason };
    }
    if (failure?.type !== CARRIER_FAILURE_TYPES.unavailable) throw error;
    // The answer was lost or the carrier failed: it may have made the order. Ask it, by our id.
    order = await reconcile(input);
    if (!order) {
      await records.dropRejected(input);
      return { outcome: 'unavailable', reason: failure.reason };
    }
  }
  // Not recorded with the create (a reconciled order, a record that failed): recorded now.
  const detail = recorded !== undefined ? recorded : await records.recordPushed(input, order);
  if (!detail) return { outcome: 'unavailable', reason: 'the shipment was removed during the push' };
  return { outcome: 'accepted', shipment: detail };
}

/** The carrier's order under our shipment id, or null once it is certain there is none. */
async function reconcile(input: SealedPush): Promise<CarrierOrder | null> {
  const lookUp = () => patientCalls.lookUpAtCarrier(input);
  for (let round = 0; round < RECONCILE_ROUNDS; round += 1) {
    try {
      const found = await lookUp();
      if (found) return found;
      // Nothing yet: a create the carrier was still working on may land after our call gave up.
      await sleep(input.recheckAfterMs ?? DEFAULT_RECHECK_AFTER_MS);
      return await lookUp();
    } catch (error) {
      const failure = carrierFailure(error);
      if (failure?.type === CARRIER_FAILURE_TYPES.unauthorized) return null;
      if (failure?.type !== CARRIER_FAILURE_TYPES.unavailable) throw error;
      await sleep(RECONCILE_PAUSE);
    }
  }
  return null;
}

export function trackingWorkflowId(shipmentId: string): string {
  return `shipment:${shipmentId}`;
}

/** What a tracking workflow knows of its shipment: the state its last recorded milestone reached, and that milestone. */
export interface ShipmentTrackingState {
  status: ShipmentState | null;
  lastMilestone: { carrierStatus: string; status: ShipmentState | null; occurredAt: string } | null;
}
export const shipmentStateQuery = defineQuery<ShipmentTrackingState>('shipmentState');
/** The push's outcome, once made: the API starts the workflow with its push and this update at once (update-with-start). */
export const shipmentPushUpdate = defineUpdate<ShipmentPushResult>('push');

export interface ShipmentTrackingInput extends TrackingKeys {
  /** Milestones received but not yet recorded when the workflow continued as new. */
  carried?: SealedMilestone[];
  /** The push the run makes before it tracks, sealed on its own: a new shipment's workflow is started with it. */
  push?: SealedPush;
}

/**
 * `shipment:<shipmentId>`: first the push it was started with, if any (a refused or failed push
 * fails the run with the carrier's words); then records each milestone a callback signals, in
 * arrival order (the recording ignores repeats and late, older states); asks the carrier after
 * `pollEveryMs` of silence; ends once the shipment (and a partial delivery's return leg) is over.
 */
export async function shipmentTrackingWorkflow(input: ShipmentTrackingInput): Promise<void> {
  const tracking: TrackingKeys = { shopId: input.shopId, shipmentId: input.shipmentId, pollEveryMs: input.pollEveryMs, seal: input.seal };
  const received: SealedMilestone[] = [...(input.carried ?? [])];
  let recheck = false;
  let pushed: ShipmentPushResult | undefined;
  const state: ShipmentTrackingState = { status: null, lastMilestone: null };
  setHandler(shipmentMilestoneSignal, (milestone) => void received.push(milestone));
  setHandler(shipmentRecheckSignal, () => void (recheck = true));
  setHandler(shipmentStateQuery, () => state);
  setHandler(
    shipmentPushUpdate,
    async () => {
      await condition(() => pushed !== undefined);
      return pushed!;
    },
    {
      validator: () => {
        if (!input.push) throw new Error('this shipment’s workflow was not started with a push');
      },
    },
  );
  if (input.push) {
    pushed = await pushToCarrier(input.push);
    shipmentOutcome.settled(pushed);
    if (pushed.outcome !== 'accepted') {
      await condition(allHandlersFinished); // the API's update has its answer before the run fails
      throw notDoneFailure(pushed);
    }
    setCurrentDetails(`**Tracking code** ${pushed.shipment.trackingCode ?? 'none yet'}`);
  }
  const silence = `ask the carrier after ${Math.round(input.pollEveryMs / 60_000)} min without a callback`;
  for (;;) {
    await condition(() => received.length > 0 || recheck, input.pollEveryMs, { summary: silence });
    const milestone = received.shift();
    if (milestone) {
      const outcome = await records.recordMilestone(tracking, milestone);
      if (outcome?.statusReached) {
        state.status = outcome.statusReached;
        upsertSearchAttributes([{ key: ShipmentStatusKey, value: outcome.statusReached }]);
      }
      state.lastMilestone = { carrierStatus: milestone.carrierStatus, status: milestone.status, occurredAt: milestone.occurredAt };
      setCurrentDetails(
        `**Tracking code** ${milestone.trackingCode}; **Status** ${state.status ?? 'unchanged'}; last milestone ${milestone.carrierStatus} at ${milestone.occurredAt}`,
      );
      if (!outcome || outcome.trackingOver) return;
    } else {
      recheck = false;
      const target = await records.trackingTarget(tracking);
      if (!target || target.trackingOver) return;
      if (target.trackingCode) {
        const polled = await patientCalls
          .pollCarrier(tracking, { connectionId: target.connectionId, trackingCode: target.trackingCode })
          .catch(() => undefined); // the carrier is down: the next silence asks again
        if (polled) received.push(polled);
      }
    }
    if (workflowInfo().continueAsNewSuggested && allHandlersFinished()) {
      const { push: _made, ...keys } = input; // the next run does not push again
      await continueAsNew<typeof shipmentTrackingWorkflow>({ ...keys, carried: received });
    }
  }
}

export type ShipmentCancelResult =
  | { outcome: 'cancelled'; shipment: ShipmentDetail }
  | { outcome: 'not-cancellable'; reason: string }
  | { outcome: 'unavailable'; reason: string };

/** `shipment-cancel:<shipmentId>:<n>`: the carrier's answer decides; a confirmed cancel is recorded and the tracking told. */
export async function shipmentCancelWorkflow(input: ShipmentCancelInput): Promise<ShipmentCancelResult> {
  try {
    await carrierCalls.cancelAtCarrier(input);
  } catch (error) {
    const failure = carrierFailure(error);
    if (!failure) throw error;
    const refused = failure.type === CARRIER_FAILURE_TYPES['not-cancellable'];
    const outcome = { outcome: refused ? 'not-cancellable' : 'unavailable', reason: failure.reason } as const;
    shipmentOutcome.settled(outcome);
    throw notDoneFailure(outcome);
  }
  const cancelled = { outcome: 'cancelled', shipment: await records.recordCancel(input) } as const;
  shipmentOutcome.settled(cancelled);
  await getExternalWorkflowHandle(trackingWorkflowId(input.shipmentId))
    .signal(shipmentRecheckSignal)
    .catch(() => undefined); // no tracking running: nothing to tell
  return cancelled;
}

/**
 * The carrier activities' failure types (activities/shipments/shipment-activities.ts), restated because
 * workflow code imports no activity code; the type makes the compiler hold both the same.
 */
const CARRIER_FAILURE_TYPES: typeof CarrierFailureTypes = {
  rejected: 'CarrierRejected',
  unavailable: 'CarrierUnavailable',
  unauthorized: 'CarrierUnauthorized',
  'not-cancellable': 'CarrierNotCancellable',
  'not-found': 'CarrierOrderNotFound',
};
const CARRIER_FAILURES: readonly string[] = Object.values(CARRIER_FAILURE_TYPES);

/** The carrier failure behind an activity failure: its type and the carrier's own words (anything else, an unsealed input too, is not one). */
function carrierFailure(error: unknown): { type: string; reason: string } | undefined {
  // A regular activity's failure wraps the activity's own; a local activity's may come unwrapped.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure) || !cause.type || !CARRIER_FAILURES.includes(cause.type)) return undefined;
  const reason = typeof cause.details?.[0] === 'string' ? cause.details[0] : cause.message;
  return { type: cause.type, reason };
}
