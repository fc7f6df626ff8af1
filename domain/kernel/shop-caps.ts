import type { Fragment } from './listing.js';
import { Problem } from './problems.js';
import type { Tx } from './tenancy.js';

/**
 * How many of each kind one shop may hold: far above what a real shop uses, low enough that one shop
 * cannot make the platform hold, list or call without bound (issue 26). Each of these lists is
 * answered whole, so its cap also bounds the list.
 */
export const SHOP_CAPS = {
  /** Each switched-on flow turns every matching write into one signed POST, retried for a day (DESIGN.md, Flows). */
  flows: { limit: 50, noun: 'flows' },
  /** A shop sells on a handful of pages; each linked page is a token held and a webhook source. */
  chatPages: { limit: 100, noun: 'chat pages' },
  /** One per stock location; large chains in Vietnam run a few dozen stores. */
  warehouses: { limit: 200, noun: 'warehouses' },
  /** Order labels: a few dozen in practice. */
  tags: { limit: 1_000, noun: 'tags' },
  salesChannels: { limit: 100, noun: 'sales channels' },
  paymentMethods: { limit: 100, noun: 'payment methods' },
  /** Two carriers, one connection per pick-up warehouse at most in practice; switched-off ones count (still tracked, still listed). */
  carrierConnections: { limit: 50, noun: 'carrier connections' },
} as const satisfies Record<string, { limit: number; noun: string }>;

export type ShopCap = keyof typeof SHOP_CAPS;

/**
 * 409 `limit-reached` (with the cap as `limit`) when the shop already holds its cap of `kind`:
 * `held`, a query of the owning module, answers one row per thing the shop holds (`select from
 * warehouses`). Call it in the creating transaction, before the insert: it first takes a
 * transaction-scoped lock per shop and kind, so concurrent creations queue up and each counts what
 * the one before it committed (the count is a statement of its own, whose snapshot is taken after
 * the lock is granted).
 */
export async function refuseAtCap(tx: Tx, shopId: string, kind: ShopCap, held: Fragment): Promise<void> {
  const { limit, noun } = SHOP_CAPS[kind];
  await tx`select pg_advisory_xact_lock(hashtextextended(${`cap:${kind}:${shopId}`}, 0))`;
  const [row] = await tx<{ count: number }[]>`select count(*)::int as count from (${held}) as held`;
  if (row!.count >= limit) {
    throw new Problem('limit-reached', `the shop already has ${row!.count} ${noun}, the most one shop may have (${limit})`, {
      extra: { limit },
    });
  }
}
