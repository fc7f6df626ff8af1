import { Problem, syncedPage, type CursorBinding, type ListQuery, type Page } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import {
  shipmentDetailSchema,
  shipmentEventSchema,
  shipmentListRowSchema,
  type ShipmentDetail,
  type ShipmentEvent,
  type ShipmentListRow,
  type ShipmentState,
} from './shipment-shapes.js';

/**
 * Stored shipments in the spec's shapes. Times and decimals are formatted by the database
 * (`api_time`, `api_decimal`) like every other resource; a row pushed before migration 23 has no
 * order code, shown as an empty string rather than breaking the shape.
 */
const listRowColumns = (tx: Tx) => tx`
  s.id, s.carrier, s.tracking_code, s.status, s.order_id, coalesce(s.order_code, '') as order_code,
  api_decimal(s.cod_amount) as cod_amount, api_decimal(s.fee_total) as fee_total,
  api_time(s.created_at) as created_at, api_time(s.updated_at) as updated_at,
  api_time(s.expected_delivery_at) as expected_delivery_at, s.fail_reason`;

/** One shipment's list row, or undefined when the shop has none with that id. */
export async function shipmentListRow(tx: Tx, id: string): Promise<ShipmentListRow | undefined> {
  const [row] = await tx`select ${listRowColumns(tx)} from shipments s where s.id = ${id}`;
  return row ? shipmentListRowSchema.parse(row) : undefined;
}

/** The itinerary in time order (ties: the order they were recorded). */
export async function shipmentEvents(tx: Tx, shipmentId: string): Promise<ShipmentEvent[]> {
  const rows = await tx`
    select id, status, carrier_status, api_time(occurred_at) as occurred_at, location, description, reason
    from shipment_events where shipment_id = ${shipmentId} order by occurred_at, recorded_at, id`;
  return rows.map((row) => shipmentEventSchema.parse(row));
}

/** The detail form with its itinerary, or undefined. */
export async function shipmentDetail(tx: Tx, id: string): Promise<ShipmentDetail | undefined> {
  // Both reads go out together (one round trip).
  const [[row], events] = await Promise.all([
    tx`
      select ${listRowColumns(tx)}, s.recipient_name, s.recipient_phone, s.recipient_address, s.weight_gram,
        api_time(s.picked_up_at) as picked_up_at
      from shipments s where s.id = ${id}`.execute(),
    shipmentEvents(tx, id),
  ]);
  if (!row) return undefined;
  return shipmentDetailSchema.parse({ ...row, events });
}

/** `GET /shipments/{id}`: the detail; 404 for an id the shop does not have. */
export async function getShipment(tx: Tx, id: string): Promise<ShipmentDetail> {
  const detail = await shipmentDetail(tx, id);
  if (!detail) throw new Problem('not-found', `no shipment ${id}`);
  return detail;
}

export interface ShipmentFilters {
  status?: ShipmentState | undefined;
  orderId?: string | undefined;
}

/**
 * `GET /shipments`: sorted by (updatedAt, id), the safety delay with `updatedSince`. No
 * `includeDeleted`: a shipment the carrier rejected is deleted and never listed; a push still
 * open is listed with no tracking code (spec: read the list after a 503).
 */
export async function listShipments(
  tx: Tx,
  query: ListQuery & ShipmentFilters,
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<ShipmentListRow>> {
  return syncedPage<ShipmentListRow>(
    tx,
    {
      table: 's',
      column: 'updated_at',
      softDelete: false,
      source: tx`shipments s`,
      columns: listRowColumns(tx),
      filters: () => [
        ...(query.status === undefined ? [] : [tx`s.status = ${query.status}`]),
        ...(query.orderId === undefined ? [] : [tx`s.order_id = ${query.orderId}`]),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}
