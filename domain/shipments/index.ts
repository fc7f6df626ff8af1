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
  connectionForPush,
  connectionOfCallback,
  connectCarrier,
  connectCarrierWithCallbackUrl,
  disconnectCarrier,
  listCarrierConnections,
  refuseRemovingPickUpWarehouse,
  type ConnectionKeys,
  type OpenedCarrierConnection,
} from './carrier-connections.js';
export { carrierEndpointRefusal, type CarrierEndpoints } from './carrier-endpoints.js';
export { carrierAddressSchema, carrierRecipientSchema, type CarrierAddress, type CarrierRecipient } from './carrier-address.js';
export {
  carrierMilestoneSchema,
  carrierOrderRequestSchema,
  carrierOrderSchema,
  type CarrierMilestone,
  type CarrierOrder,
  type CarrierOrderRequest,
} from './carrier-order-shapes.js';
export { getShipment, listShipments, shipmentDetail, shipmentEvents, shipmentListRow, type ShipmentFilters } from './shipment-reads.js';
export {
  recordAcceptedShipment,
  dropRejectedShipment,
  recordMilestone,
  trackedShipment,
  shipmentOfCallback,
  requestCancel,
  recordCancelled,
  startShipment,
  type MilestoneOutcome,
  type NewShipment,
  type TrackedShipment,
} from './shipment-lifecycle.js';
export {
  createdShipmentSchema,
  finalShipmentStates,
  pushRequestSchema,
  shipmentDetailSchema,
  shipmentEventSchema,
  shipmentListRowSchema,
  shipmentStates,
  shipmentStateSchema,
  type CreatedShipment,
  type PushRequest,
  type ShipmentDetail,
  type ShipmentEvent,
  type ShipmentListRow,
  type ShipmentState,
} from './shipment-shapes.js';
export { hasLiveShipment } from './shipments.js';
