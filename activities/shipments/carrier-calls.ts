import type { KeyObject } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../../db/client.js';
import { Problem, seal, withShop } from '../../domain/kernel/index.js';
import { carrierConnection, type OpenedCarrierConnection } from '../../domain/shipments/index.js';
import { CARRIER_FAILURE_TYPES } from './shipment-failures.js';
import type { SealedMilestone, ShipmentCancelInput, ShipmentPushInput, TrackingKeys } from './shipment-inputs.js';
import { runningWorkflowId } from '../sealed-activities.js';
import { CarrierError, type CarrierAdapter, type CarrierAdapterOptions } from '../../adapters/carriers/carrier-adapter.js';
import type { CarrierMilestone, CarrierOrder } from '../../domain/shipments/index.js';
import { carrierAdapter } from '../../adapters/carriers/carrier-adapters.js';
import { observedCarrier } from '../../telemetry/call-metrics.js';

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
    async createAtCarrier(push: ShipmentPushInput): Promise<CarrierOrder> {
      return withCarrier(push, (adapter) => adapter.create(push.request), deps.handedConnection?.(runningWorkflowId()));
    },

    /** The order the carrier holds under our shipment id, or null when it has none (the create never landed). */
    async lookUpAtCarrier(push: ShipmentPushInput): Promise<CarrierOrder | null> {
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
