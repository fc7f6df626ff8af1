/**
 * Shipments: shipments of orders, their itinerary and the shop's carrier connections (shipments,
 * shipment_events, carrier_connections). Connections keep their credentials sealed; only
 * `carrierConnection` opens them, for the carrier adapters. Other modules import only this file.
 */

export {
  carrierConnectionSchema,
  carriers,
  carrierSchema,
  connectCarrierInputSchema,
  type Carrier,
  type CarrierACredentials,
  type CarrierBCredentials,
  type CarrierConnection,
  type ConnectCarrierInput,
} from './carrier-connection-input.js';
export {
  callbackSecretHash,
  carrierCallbackUrl,
  carrierConnection,
  connectCarrier,
  connectCarrierWithCallbackUrl,
  disconnectCarrier,
  listCarrierConnections,
  type OpenedCarrierConnection,
} from './carrier-connections.js';
export { shipmentDetail, shipmentEvents, shipmentListRow } from './shipment-reads.js';
export {
  createdShipmentSchema,
  finalShipmentStates,
  shipmentDetailSchema,
  shipmentEventSchema,
  shipmentListRowSchema,
  shipmentStates,
  shipmentStateSchema,
  type CreatedShipment,
  type ShipmentDetail,
  type ShipmentEvent,
  type ShipmentListRow,
  type ShipmentState,
} from './shipment-shapes.js';
export { hasLiveShipment } from './shipments.js';
