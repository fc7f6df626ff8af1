import { getCustomer } from '../customers/customers.js';
import { getStockRow } from '../inventory/inventory.js';
import { getProduct } from '../catalog/products.js';
import type { Tx } from '../kernel/tenancy.js';

type Reader = (tx: Tx) => Promise<Record<string, unknown> | undefined>;

/** The record `read` makes of the row `latest` finds, if any. */
function sample(latest: (tx: Tx) => Promise<{ id: string }[]>, read: (tx: Tx, id: string) => Promise<object>): Reader {
  return async (tx) => {
    const [row] = await latest(tx);
    // Every `GET` shape is a plain JSON object.
    return row ? ((await read(tx, row.id)) as Record<string, unknown>) : undefined;
  };
}

/** The shop's latest record of each kind, in its `GET` shape, for test-run samples. */
export const SAMPLE_READERS: Record<string, Reader> = {
  product: sample((tx) => tx<{ id: string }[]>`select id from products where deleted_at is null order by updated_at desc limit 1`, getProduct),
  customer: sample((tx) => tx<{ id: string }[]>`select id from customers where deleted_at is null order by updated_at desc limit 1`, getCustomer),
  inventory: sample((tx) => tx<{ id: string }[]>`select id from stock order by stock_changed_at desc limit 1`, getStockRow),
};
