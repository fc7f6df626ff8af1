import type { Fragment } from './listing.js';
import { Problem } from './problems.js';
import { SHOP_CAPS, type ShopCap } from './shop-caps.js';
import type { Tx } from './tenancy.js';

/**
 * 409 `conflict`, with a field error on `name`, when another entry of a shop's list already has the
 * name, whatever its letter case (accents count: `Bán` and `Bạn` are different words). `named`, a
 * query of the owning module, answers `id, name` for each entry; `exceptId` is the entry being
 * renamed. A transaction-scoped lock per shop and list first queues concurrent creations and renames,
 * so two of them cannot both take one name.
 */
export async function refuseTakenName(
  tx: Tx,
  shopId: string,
  list: ShopCap,
  named: Fragment,
  name: string,
  exceptId: string | null = null,
): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`names:${list}:${shopId}`}, 0))`;
  const [taken] = await tx<{ id: string }[]>`
    select id from (${named}) as named where lower(name) = lower(${name}) and id is distinct from ${exceptId}::uuid limit 1`;
  if (taken) {
    throw new Problem('conflict', `another of the shop's ${SHOP_CAPS[list].noun} is already named "${name}"`, {
      errors: [{ path: 'name', message: 'is already taken' }],
    });
  }
}

/**
 * 409 `conflict` when `uses` records of kind `usedBy` (`orders`, `stock`, …, also in the problem's
 * `usedBy` and `uses` members) still rely on the entry `what`: removing it would leave them pointing
 * at nothing, so the shop first moves them elsewhere.
 */
export function refuseInUse(what: string, usedBy: string, uses: number): void {
  if (uses > 0) {
    throw new Problem('conflict', `${what} is still used by ${uses} ${usedBy.replaceAll('-', ' ')}; it cannot be removed`, {
      extra: { usedBy, uses },
    });
  }
}
