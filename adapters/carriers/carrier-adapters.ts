import { carrierEndpointRefusal, type Carrier, type OpenedCarrierConnection } from '../../domain/shipments/index.js';
import { carrierA, parseCarrierACallback } from './carrier-a.js';
import { carrierB, parseCarrierBCallback } from './carrier-b.js';
import { CarrierError, type CarrierAdapter, type CarrierAdapterOptions } from './carrier-adapter.js';
import type { CarrierMilestone } from '../../domain/shipments/index.js';

/** The adapter that speaks to a connection's carrier, with its opened credentials. */
export function carrierAdapter(connection: OpenedCarrierConnection, options: CarrierAdapterOptions): CarrierAdapter {
  const refusal = carrierEndpointRefusal(connection.carrier, connection.baseUrl, options.endpoints);
  // A connection made before the rule (or before the hosts setting changed) is unusable, not called.
  if (refusal) throw new CarrierError('unauthorized', `the connection's address is refused: ${refusal}`);
  return connection.carrier === 'carrier_a' ? carrierA(connection, options) : carrierB(connection, options);
}

/** A callback body in its carrier's shape, as a milestone; InvalidCarrierCallback when it is not one. */
export function parseCarrierCallback(carrier: Carrier, body: unknown): CarrierMilestone {
  return carrier === 'carrier_a' ? parseCarrierACallback(body) : parseCarrierBCallback(body);
}
