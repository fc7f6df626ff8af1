import type { KeyObject } from 'node:crypto';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { Sql } from '../../db/client.js';
import { hasValidSeal, Problem, seal, withShop } from '../../domain/kernel/index.js';
import { recordShipmentCancelled, recordShipmentMilestone, recordShipmentPushed } from '../../domain/orders/index.js';
import {
  carrierConnection,
  dropRejectedShipment,
  trackedShipment,
  type CarrierMilestone,
  type CarrierOrder,
  type CarrierOrderRequest,
  type OpenedCarrierConnection,
  type ShipmentDetail,
  type ShipmentState,
  type TrackedShipment,
} from '../../domain/shipments/index.js';
import { runningWorkflowId } from '../sealed-activities.js';
import { CarrierError, type CarrierAdapter, type CarrierAdapterOptions } from '../../adapters/carriers/carrier-adapter.js';
import { carrierAdapter } from '../../adapters/carriers/carrier-adapters.js';
import { observedCarrier } from '../../telemetry/call-metrics.js';

// A shipment's activities, top to bottom: what the workflows hand them (the sealed inputs) and the
// failures they answer with, the carrier calls, the database steps, and the push that joins a
// create and its record.

/**
 * The failure types of the carrier activities (below), one per
 * kind of carrier error, so the shipment workflows branch on them. The workflows restate them (workflow
 * code imports no activity code), typed by this constant so the two cannot drift. Only `unavailable` is retried (create and cancel are idempotent at the carriers).
 */
export const CARRIER_FAILURE_TYPES = {
  rejected: 'CarrierRejected',
  unavailable: 'CarrierUnavailable',
  unauthorized: 'CarrierUnauthorized',
  'not-cancellable': 'CarrierNotCancellable',
  'not-found': 'CarrierOrderNotFound',
} as const;

/**
 * The failure type of a shipment workflow's input that is not sealed by Shopflow for that workflow
 * (activities/sealed-activities.ts): nothing is called, nothing written, and the run fails.
 */
export const UNSEALED_INPUT = 'UnsealedWorkflowInput';

// What the shipment workflows hand their activities: the inputs the starter seals
// (workflows/shipments/shipment-starter.ts) and the activities check before they act. The workflows
// import them as types only, and nothing here imports a workflow.

/** Which shipment a workflow is about: what an operator filters by in the Temporal Web UI. */
export interface ShipmentKeys {
  shopId: string;
  shipmentId: string;
  orderId: string;
  carrier: string;
  /** For the run's summary in the Temporal UI; absent in runs of older versions. */
  orderCode?: string;
  trackingCode?: string;
}

/** A carrier's milestone as Shopflow signals it: sealed for the tracking workflow (workflows/shipments/shipment-starter.ts). */
export type SealedMilestone = CarrierMilestone & { seal: string };

/** A push as the shipment workflow runs it: the carrier's request built from the order, sealed for the run. */
export interface SealedPush {
  shopId: string;
  orderId: string;
  connectionId: string;
  carrier: string;
  /** The application that pushed (the shop log's actor). */
  applicationId: string | null;
  request: CarrierOrderRequest;
  /** The order's code, for the tracking's summary (absent in pushes of older versions). */
  orderCode?: string;
  /** How long the tracking workflow waits for a callback before it asks the carrier. */
  pollEveryMs: number;
  /** After a look-up finds nothing, how long to wait before believing it (a late create still lands). */
  recheckAfterMs?: number;
  /** Shopflow's seal of the other fields, for this workflow's id (domain/kernel/seals.ts): the activities act only on it. */
  seal: string;
}

/** Which shipment a tracking workflow follows, sealed by Shopflow for the workflow's id. */
export interface TrackingKeys {
  shopId: string;
  shipmentId: string;
  pollEveryMs: number;
  seal: string;
}

export interface ShipmentCancelInput {
  shopId: string;
  shipmentId: string;
  connectionId: string;
  trackingCode: string;
  applicationId: string | null;
  reason: string | null;
  /** Shopflow's seal of the other fields, for this workflow's id. */
  seal: string;
}

/** A carrier call's outcome in the metrics: the kind of the carrier's refusal or failure. */
const carrierOutcome = (error: unknown) => (error instanceof CarrierError ? error.kind : 'error');

/** Which connection of which shop an activity speaks through. */
export interface ConnectionRef {
  shopId: string;
  connectionId: string;
}

/**
 * The carrier calls as activities: each takes first the workflow's input, Shopflow's (sealed for the
 * running workflow, checked by activities/sealed-activities.ts), opens the connection's credentials in the shop's transaction
 * (never in workflow history), calls the adapter, and turns a carrier error into an
 * ApplicationFailure of its kind (CARRIER_FAILURE_TYPES); only `unavailable` is retryable. A push's
 * create takes the connection its request opened, when that request started the run on this
 * process's worker and handed it over (`handedConnection`, docs/behaviour/shipments.md).
 */
export function createCarrierActivities(deps: {
  sql: Sql;
  secretsKey: KeyObject;
  sealKey: string;
  adapterOptions: CarrierAdapterOptions;
  /** The connection handed over for run `workflowId`, once (ShipmentOutcomes.takeConnection). */
  handedConnection?: (workflowId: string) => OpenedCarrierConnection | undefined;
}) {
  const opened = (ref: ConnectionRef, handed: OpenedCarrierConnection | undefined): Promise<OpenedCarrierConnection> =>
    handed?.id === ref.connectionId && handed.shopId === ref.shopId
      ? Promise.resolve(handed)
      : withShop(deps.sql, ref.shopId, (tx) => carrierConnection(tx, ref.connectionId, deps.secretsKey));

  async function withCarrier<T>(
    ref: ConnectionRef,
    call: (adapter: CarrierAdapter) => Promise<T>,
    handed?: OpenedCarrierConnection,
  ): Promise<T> {
    const connection = await opened(ref, handed).catch((error: unknown) => {
      // A connection without credentials is unusable, like one whose credentials the carrier refuses.
      if (error instanceof Problem && error.code === 'carrier-unavailable')
        throw ApplicationFailure.nonRetryable(error.detail, CARRIER_FAILURE_TYPES.unauthorized);
      throw error;
    });
    try {
      return await call(observedCarrier(carrierAdapter(connection, deps.adapterOptions), connection.carrier, carrierOutcome));
    } catch (error) {
      throw error instanceof CarrierError ? asFailure(error) : error;
    }
  }

  return {
    async createAtCarrier(push: SealedPush): Promise<CarrierOrder> {
      return withCarrier(push, (adapter) => adapter.create(push.request), deps.handedConnection?.(runningWorkflowId()));
    },

    /** The order the carrier holds under our shipment id, or null when it has none (the create never landed). */
    async lookUpAtCarrier(push: SealedPush): Promise<CarrierOrder | null> {
      return withCarrier(push, (adapter) =>
        adapter.lookup(push.request.shipmentId).catch((error: unknown) => {
          if (error instanceof CarrierError && error.kind === 'not-found') return null;
          throw error;
        }),
      );
    },

    /**
     * The carrier's status endpoint as a milestone of the outbound leg, for tracking when callbacks are
     * silent; sealed for the tracking workflow, like the milestones callbacks signal.
     */
    async pollCarrier(tracking: TrackingKeys, target: { connectionId: string; trackingCode: string }): Promise<SealedMilestone> {
      const order = await withCarrier({ shopId: tracking.shopId, connectionId: target.connectionId }, (adapter) =>
        adapter.status(target.trackingCode),
      );
      const milestone: CarrierMilestone = {
        trackingCode: order.trackingCode,
        shipmentId: order.shipmentId,
        leg: 'outbound',
        carrierStatus: order.carrierStatus,
        status: order.status,
        // The status endpoints give no time of the change: when we learnt it.
        occurredAt: new Date().toISOString(),
        location: null,
        description: "Read from the carrier's status endpoint",
        reason: null,
        feeTotal: order.feeTotal,
        endsReturnLeg: false,
        polled: true,
      };
      return seal(deps.sealKey, milestone, runningWorkflowId());
    },

    async cancelAtCarrier(cancel: ShipmentCancelInput): Promise<void> {
      return withCarrier(cancel, (adapter) => adapter.cancel(cancel.trackingCode));
    },
  };
}

export type CarrierActivities = ReturnType<typeof createCarrierActivities>;

function asFailure(error: CarrierError): ApplicationFailure {
  const type = CARRIER_FAILURE_TYPES[error.kind];
  // The carrier's own words travel as the failure's details: the rejection reason the API shows.
  return error.kind === 'unavailable'
    ? ApplicationFailure.retryable(error.message, type, error.reason)
    : ApplicationFailure.nonRetryable(error.message, type, error.reason);
}

/**
 * The shipment workflows' database steps, each one transaction in the shop: the carrier's
 * acceptance or rejection of a push, a milestone, a confirmed cancel. Each is safe to run again, and
 * each takes first the workflow's sealed input (the push, the tracking, the cancel), checked by
 * activities/sealed-activities.ts.
 *
 * `cancelRecorded` hears of each confirmed cancel once it is committed, before the workflow does: a
 * request that started the cancel in this process answers from it, a workflow activation sooner
 * (docs/behaviour/shipments.md), as a push's acceptance is handed over by its activity.
 */
export function createShipmentRecordActivities(deps: {
  sql: Sql;
  sealKey: string;
  cancelRecorded?: (workflowId: string, shipment: ShipmentDetail) => void;
}) {
  return {
    /** The carrier's acceptance of `push`; null when the row is gone (it cannot be: only a rejection deletes it). */
    async recordPushed(push: SealedPush, order: CarrierOrder): Promise<ShipmentDetail | null> {
      const actor = { shopId: push.shopId, permissions: [], applicationId: push.applicationId };
      return (await withShop(deps.sql, push.shopId, (tx) => recordShipmentPushed(tx, actor, push.request.shipmentId, order))) ?? null;
    },

    /** A push the carrier refused, or that never reached it: its pending shipment goes. */
    async dropRejected(push: SealedPush): Promise<void> {
      await withShop(deps.sql, push.shopId, (tx) => dropRejectedShipment(tx, push.request.shipmentId));
    },

    /**
     * Null when the shop has no such shipment (a callback for a row since deleted). A milestone not
     * sealed for this tracking (a forged signal) is ignored and logged; the tracking goes on.
     */
    async recordMilestone(
      tracking: TrackingKeys,
      milestone: SealedMilestone,
    ): Promise<{ trackingOver: boolean; statusReached?: ShipmentState | null } | null> {
      const { seal: _seal, ...fields } = milestone;
      if (!hasValidSeal(deps.sealKey, milestone, runningWorkflowId())) {
        log.warn('a milestone not sealed by Shopflow was ignored', { shipmentId: tracking.shipmentId });
        return { trackingOver: false, statusReached: null };
      }
      const { shopId, shipmentId } = tracking;
      return (await withShop(deps.sql, shopId, (tx) => recordShipmentMilestone(tx, shopId, shipmentId, fields))) ?? null;
    },

    async recordCancel(cancel: ShipmentCancelInput): Promise<ShipmentDetail> {
      const actor = { shopId: cancel.shopId, permissions: [], applicationId: cancel.applicationId };
      const shipment = await withShop(deps.sql, cancel.shopId, (tx) =>
        recordShipmentCancelled(tx, actor, cancel.shipmentId, cancel.reason),
      );
      deps.cancelRecorded?.(runningWorkflowId(), shipment);
      return shipment;
    },

    async trackingTarget(tracking: TrackingKeys): Promise<TrackedShipment | null> {
      return (await withShop(deps.sql, tracking.shopId, (tx) => trackedShipment(tx, tracking.shipmentId))) ?? null;
    },
  };
}

export type ShipmentRecordActivities = ReturnType<typeof createShipmentRecordActivities>;
export type { ShipmentDetail };

/** The carrier's order, and its record: the shipment's detail, null when the row is gone, absent when the record failed. */
export interface PushedAtCarrier {
  order: CarrierOrder;
  shipment?: ShipmentDetail | null;
}

/**
 * A push's create and, once the carrier accepted, its record, as one local activity: one hop through
 * the worker and one marker instead of two (docs/behaviour/shipments.md). The create fails as it would alone (the
 * workflow reads the carrier's failure); a record that fails does not fail the call, whose retry
 * would only call the carrier again: the order comes back unrecorded and the workflow records it with
 * the record activity's patient retries.
 *
 * `recorded` hears of each acceptance once it is committed, before the workflow does: a request that
 * started the run in this process answers from it, a workflow activation sooner (docs/behaviour/shipments.md).
 */
export function createPushActivities(deps: {
  carrier: Pick<CarrierActivities, 'createAtCarrier'>;
  records: Pick<ShipmentRecordActivities, 'recordPushed'>;
  recorded?: (workflowId: string, shipment: ShipmentDetail) => void;
}) {
  return {
    async pushAtCarrier(push: SealedPush): Promise<PushedAtCarrier> {
      const order = await deps.carrier.createAtCarrier(push);
      try {
        const shipment = await deps.records.recordPushed(push, order);
        const workflowId = Context.current().info.workflowExecution?.workflowId;
        if (shipment && workflowId) deps.recorded?.(workflowId, shipment);
        return { order, shipment };
      } catch (error) {
        log.warn('the carrier accepted the push, its record failed: the workflow records it again', {
          shipmentId: push.request.shipmentId,
          error: (error as Error).message,
        });
        return { order };
      }
    },
  };
}

export type PushActivities = ReturnType<typeof createPushActivities>;
