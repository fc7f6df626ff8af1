import { userNameOf } from '../access/index.js';
import { warehouseNameOf } from '../inventory/index.js';
import { pipelined, Problem, syncedPage, type CursorBinding, type ListQuery, type Page } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import type { OrderStatus } from './order-status.js';
import type { OrderDetail, OrderRow } from './order-shapes.js';

/**
 * An order as the API shows it (`GET /orders`, `GET /orders/{id}`) and as its events carry it; the
 * list, the detail and the locked detail a change starts from. The handler's and the warehouse's
 * names come from the access and inventory modules (scalar subqueries they publish).
 */

export type { OrderDetail, OrderLine, OrderNote, OrderRow } from './order-shapes.js';

export interface OrderFilters {
  status?: OrderStatus | undefined;
  customerId?: string | undefined;
  code?: string | undefined;
}

const ROW_HEAD = (tx: Tx) => tx`
  o.id, o.code, o.status, o.warehouse_id, ${warehouseNameOf(tx, tx`o.warehouse_id`)} as warehouse_name, o.customer_id, o.sales_channel_id, sc.name as sales_channel_name,
  o.received_at_shop, o.handler_user_id, ${userNameOf(tx, tx`o.handler_user_id`)} as handler_name, o.bill_full_name, o.bill_phone, o.bill_email`;
const SHIPPING_ADDRESS = (tx: Tx) => tx`
  case when o.has_shipping_address then json_build_object(
    'recipientName', o.shipping_recipient_name, 'recipientPhone', o.shipping_recipient_phone, 'addressLine', o.shipping_address_line,
    'geoSystem', o.shipping_geo_system, 'provinceUnitId', o.shipping_province_unit_id, 'districtUnitId', o.shipping_district_unit_id,
    'wardUnitId', o.shipping_ward_unit_id, 'provinceName', o.shipping_province_name, 'districtName', o.shipping_district_name,
    'wardName', o.shipping_ward_name) end as shipping_address`;
const ROW_MONEY = (tx: Tx) => tx`
  api_decimal(o.total_price) as total_price, api_decimal(o.discount) as discount, api_decimal(o.shipping_fee) as shipping_fee, o.free_shipping,
  api_decimal(o.surcharge) as surcharge, api_decimal(o.tax) as tax, api_decimal(o.total_amount) as total_amount,
  api_decimal(o.returned_amount) as returned_amount, api_decimal(o.paid_amount) as paid_amount`;
const ROW_TAIL = (tx: Tx) => tx`
  api_time(o.occurred_at) as occurred_at, o.note,
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by ot.position) from order_tags ot join tags t on t.id = ot.tag_id where ot.order_id = o.id), '[]') as tags`;
const LINES_AND_PAYMENTS = (tx: Tx) => tx`
  coalesce((select json_agg(json_build_object(
      'id', l.id, 'variantId', l.variant_id, 'productId', l.product_id, 'variantCode', l.variant_code, 'variantName', l.variant_name,
      'productName', l.product_name, 'quantity', api_decimal(l.quantity), 'unitPrice', api_decimal(l.unit_price), 'discount', api_decimal(l.discount),
      'lineTotal', api_decimal(l.line_total), 'returnedQuantity', api_decimal(l.returned_quantity)) order by l.position)
    from order_lines l where l.order_id = o.id), '[]') as lines,
  coalesce((select json_agg(json_build_object('methodId', p.method_id, 'methodName', m.name, 'amount', api_decimal(p.amount)) order by p.position)
    from order_payments p join payment_methods m on m.id = p.method_id where p.order_id = o.id), '[]') as payments`;
const AUDIT_TIMES = (tx: Tx) =>
  tx`api_time(o.created_at) as created_at, api_time(o.updated_at) as updated_at, api_time(o.deleted_at) as deleted_at`;
const SOURCE = (tx: Tx) => tx`
  orders o
  left join sales_channels sc on sc.id = o.sales_channel_id`;

/** `GET /orders`: (updatedAt, id) order; rows without lines, payments, shipping address, credit and exchange flag. */
export async function listOrders(
  tx: Tx,
  query: ListQuery & OrderFilters,
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<OrderRow>> {
  return syncedPage<OrderRow>(
    tx,
    {
      table: 'o',
      column: 'updated_at',
      softDelete: true,
      source: SOURCE(tx),
      columns: tx`${ROW_HEAD(tx)}, ${ROW_MONEY(tx)}, ${ROW_TAIL(tx)}, ${AUDIT_TIMES(tx)}`,
      filters: () => [
        ...(query.status === undefined ? [] : [tx`o.status = ${query.status}`]),
        ...(query.customerId === undefined ? [] : [tx`o.customer_id = ${query.customerId}`]),
        // Exact code (spec); code_key keeps the lookup on the index.
        ...(query.code === undefined ? [] : [tx`o.code_key = lower(${query.code}) and o.code = ${query.code}`]),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}

/** `GET /orders/{id}`: the detail form; 404 for another shop's id. */
export async function getOrder(tx: Tx, id: string): Promise<OrderDetail> {
  const [order] = await tx<OrderDetail[]>`
    select ${ROW_HEAD(tx)}, ${SHIPPING_ADDRESS(tx)}, ${ROW_MONEY(tx)}, api_decimal(o.credit_applied) as credit_applied, o.exchange_return,
      ${ROW_TAIL(tx)}, ${LINES_AND_PAYMENTS(tx)}, ${AUDIT_TIMES(tx)}
    from ${SOURCE(tx)} where o.id = ${id}`;
  if (!order) throw new Problem('not-found', `no order ${id}`);
  return order;
}

/** Locks the order row for a change and returns its detail (one round trip). */
export function lockedOrder(tx: Tx, id: string): Promise<OrderDetail> {
  return pipelined(tx`select id from orders where id = ${id} for update`, () => getOrder(tx, id));
}
