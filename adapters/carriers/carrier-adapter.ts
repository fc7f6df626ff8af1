import type { Dispatcher } from 'undici';
import type { CarrierEndpoints, CarrierMilestone, CarrierOrder, CarrierOrderRequest } from '../../domain/shipments/index.js';

/**
 * What every carrier adapter speaks, whatever the carrier: the shapes of domain/shipments
 * (carrier-order-shapes), and one error classification callers branch on:
 * - `rejected`: the carrier refuses the content (address, weight, its own rule), with its reason → 409 `conflict`;
 * - `unavailable`: 5xx, 429, time-out, network, an answer we cannot read → 503 `carrier-unavailable`;
 * - `unauthorized`: the carrier refuses the connection's credentials (401/403) → 503 `carrier-unavailable`, not retried;
 * - `not-cancellable`: too late to cancel → 409 `shipment-not-cancellable`;
 * - `not-found`: the carrier has no such order (for the caller) → 404 `not-found` or "not pushed yet".
 */
export const carrierErrorKinds = ['rejected', 'unavailable', 'unauthorized', 'not-cancellable', 'not-found'] as const;
export type CarrierErrorKind = (typeof carrierErrorKinds)[number];

export const problemCodeOfCarrierError = {
  rejected: 'conflict',
  unavailable: 'carrier-unavailable',
  unauthorized: 'carrier-unavailable',
  'not-cancellable': 'shipment-not-cancellable',
  'not-found': 'not-found',
} as const satisfies Record<CarrierErrorKind, string>;

export class CarrierError extends Error {
  override readonly name = 'CarrierError';

  readonly kind: CarrierErrorKind;
  /** The carrier's own words (the rejection reason), or ours when it said nothing. */
  readonly reason: string;

  constructor(kind: CarrierErrorKind, reason: string, options?: { cause?: unknown }) {
    super(`${kind}: ${reason}`, options);
    this.kind = kind;
    this.reason = reason;
  }
}

/** A callback body that is not the carrier's shape: the endpoint answers 400 and keeps nothing. */
export class InvalidCarrierCallback extends Error {
  override readonly name = 'InvalidCarrierCallback';
}

export interface CarrierAdapter {
  /** Idempotent: a repeated create (same shipment id) returns the order the carrier already has. */
  create(request: CarrierOrderRequest): Promise<CarrierOrder>;
  /** By our shipment id: the reconciliation after a lost answer. */
  lookup(shipmentId: string): Promise<CarrierOrder>;
  status(trackingCode: string): Promise<CarrierOrder>;
  /** Resolves once the order is cancelled (also when it already was). */
  cancel(trackingCode: string): Promise<void>;
  parseCallback(body: unknown): CarrierMilestone;
}

/** Every call is bounded: a silent carrier is `unavailable` after this long. */
export const CARRIER_CALL_TIMEOUT_MS = 10_000;

export interface CarrierAdapterOptions {
  /** The outbound policy's dispatcher (adapters/outbound/outbound-http.ts): every carrier call goes through it. */
  dispatcher: Dispatcher;
  /** Where a connection may point: checked again on every call, for connections made before a rule changed. */
  endpoints: CarrierEndpoints;
  timeoutMs?: number;
}

/** Whole dong: carriers take integers; our decimals may carry zero fractions. */
export function wholeDong(amount: string): number {
  return Math.round(Number(amount));
}
