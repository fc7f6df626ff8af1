import { Problem } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import type { OrderNote } from './order-shapes.js';

const NOTE_COLUMNS = (tx: Tx) =>
  tx`id, message, created_by_name, created_by_is_integration, api_time(created_at) as created_at, api_time(updated_at) as updated_at`;

/** `GET /orders/{id}/notes`: newest first, not paginated; 404 for another shop's order. */
export async function listOrderNotes(tx: Tx, orderId: string): Promise<OrderNote[]> {
  await assertOrderExists(tx, orderId);
  return [
    ...(await tx<OrderNote[]>`select ${NOTE_COLUMNS(tx)} from order_notes where order_id = ${orderId} order by created_at desc, id desc`),
  ];
}

/** `POST /orders/{id}/notes`: written by the connection application. Notes are not order `data`: no event. */
export async function addOrderNote(
  tx: Tx,
  shopId: string,
  orderId: string,
  note: { message: string; applicationId: string; applicationName: string },
): Promise<OrderNote> {
  await assertOrderExists(tx, orderId);
  const [created] = await tx<OrderNote[]>`
    insert into order_notes (shop_id, order_id, message, created_by_name, created_by_is_integration, application_id)
    values (${shopId}, ${orderId}, ${note.message}, ${note.applicationName}, true, ${note.applicationId})
    returning ${NOTE_COLUMNS(tx)}`;
  return created!;
}

/** 404 like `GET /orders/{id}` for an order absent from the shop (a deleted order is still there). */
async function assertOrderExists(tx: Tx, orderId: string): Promise<void> {
  const [order] = await tx`select 1 from orders where id = ${orderId}`;
  if (!order) throw new Problem('not-found', `no order ${orderId}`);
}
