import type { Carrier, OpenedCarrierConnection } from '../../domain/shipments/index.js';
import { carrierA, parseCarrierACallback } from './carrier-a.js';
import { carrierB, parseCarrierBCallback } from './carrier-b.js';
import type { CarrierAdapter, CarrierAdapterOptions, CarrierMilestone } from './carrier-adapter.js';

/** The adapter that speaks to a connection's carrier, with its opened credentials. */
export function carrierAdapter(connection: OpenedCarrierConnection, options: CarrierAdapterOptions = {}): CarrierAdapter {
  return connection.carrier === 'carrier_a' ? carrierA(connection, options) : carrierB(connection, options);
}

/** A callback body in its carrier's shape, as a milestone; InvalidCarrierCallback when it is not one. */
export function parseCarrierCallback(carrier: Carrier, body: unknown): CarrierMilestone {
  return carrier === 'carrier_a' ? parseCarrierACallback(body) : parseCarrierBCallback(body);
}
