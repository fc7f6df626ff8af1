import type { Tx } from '../kernel/index.js';

/** Whether the order has a shipment that has not ended (DESIGN.md's final shipment states). */
export async function hasLiveShipment(tx: Tx, orderId: string): Promise<boolean> {
  const [row] = await tx<{ live: boolean }[]>`select exists (select 1 from shipments where order_id = ${orderId} and not ended) as live`;
  return row!.live;
}
