import type { OpenedCarrierConnection } from '../../domain/shipments/index.js';
import { carrierA } from './carrier-a.js';
import { carrierB } from './carrier-b.js';
import type { CarrierAdapter, CarrierAdapterOptions } from './carrier-adapter.js';

/** The adapter that speaks to a connection's carrier, with its opened credentials. */
export function carrierAdapter(connection: OpenedCarrierConnection, options: CarrierAdapterOptions = {}): CarrierAdapter {
  return connection.carrier === 'carrier_a' ? carrierA(connection, options) : carrierB(connection, options);
}
