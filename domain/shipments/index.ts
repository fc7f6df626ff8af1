/**
 * Shipments: shipments of orders and the shop's carrier connections (shipments,
 * carrier_connections). Small until the carrier adapters arrive. Other modules import only this file.
 */

export { listCarrierConnections } from './carrier-connections.js';
export { hasLiveShipment } from './shipments.js';
