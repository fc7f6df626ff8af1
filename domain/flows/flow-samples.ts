import { latestProduct } from '../catalog/index.js';
import { latestCustomer } from '../customers/index.js';
import { latestStockRow } from '../inventory/index.js';
import type { Tx } from '../kernel/index.js';

type Reader = (tx: Tx) => Promise<Record<string, unknown> | undefined>;

/** The record `latest` finds, if any (every `GET` shape is a plain JSON object). */
function sample(latest: (tx: Tx) => Promise<object | undefined>): Reader {
  return async (tx) => (await latest(tx)) as Record<string, unknown> | undefined;
}

/** The shop's latest record of each kind, in its `GET` shape, for test-run samples (each module finds its own). */
export const SAMPLE_READERS: Record<string, Reader> = {
  product: sample(latestProduct),
  customer: sample(latestCustomer),
  inventory: sample(latestStockRow),
};
