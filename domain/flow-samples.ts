import { getCustomer } from './customers.js';
import { getStockRow } from './inventory.js';
import { getProduct } from './products.js';
import type { Tx } from './tenancy.js';

type Reader = (tx: Tx) => Promise<Record<string, unknown> | undefined>;

/** The shop's latest record of each kind, in its `GET` shape, for test-run samples. */
export const SAMPLE_READERS: Record<string, Reader> = {
  product: async (tx) => {
    const [row] = await tx<{ id: string }[]>`select id from products where deleted_at is null order by updated_at desc limit 1`;
    return row ? ((await getProduct(tx, row.id)) as unknown as Record<string, unknown>) : undefined;
  },
  customer: async (tx) => {
    const [row] = await tx<{ id: string }[]>`select id from customers where deleted_at is null order by updated_at desc limit 1`;
    return row ? ((await getCustomer(tx, row.id)) as unknown as Record<string, unknown>) : undefined;
  },
  inventory: async (tx) => {
    const [row] = await tx<{ id: string }[]>`select id from stock order by stock_changed_at desc limit 1`;
    return row ? ((await getStockRow(tx, row.id)) as unknown as Record<string, unknown>) : undefined;
  },
};
