import type { Fragment, Tx } from '../kernel/index.js';

/**
 * What other modules read of the catalog: variants with their product's state, for order lines
 * (orders), stock rows and documents (inventory).
 */

/** A variant as an order line takes it: codes and names when sold, list price, and whether it can be sold and holds stock. */
export interface VariantForOrderLine {
  id: string;
  productId: string;
  code: string;
  /** The variant's attribute values in the product's order, ` / `-joined; null without any. */
  name: string | null;
  productName: string;
  price: string;
  /** Removed from its product, or of a deleted product. */
  removed: boolean;
  /** Not a service. */
  stocked: boolean;
}

/** The variants of `ids` that exist in the shop (others are simply absent from the answer). */
export async function variantsForOrderLines(tx: Tx, ids: readonly string[]): Promise<VariantForOrderLine[]> {
  return tx<VariantForOrderLine[]>`
    select v.id, v.product_id, v.code, p.name as product_name, v.price::text as price, v.removed_at is not null or p.deleted_at is not null as removed,
      p.type <> 'service' as stocked,
      (select string_agg(v.attributes ->> a.name, ' / ' order by a.ordinality)
       from unnest(p.attribute_names) with ordinality as a(name, ordinality) where coalesce(v.attributes ->> a.name, '') <> '') as name
    from variants v join products p on p.id = v.product_id
    where v.id = any(${ids as string[]}::uuid[])`;
}

/**
 * A `from` item of the shop's variants, for another module's query (stock rows, inventory documents,
 * order lines): columns `id`, `product_id`, `code`, `weight_grams`, `removed` (removed from its product),
 * `product_deleted`, `service` (a service holds no stock).
 */
export function variantFacts(tx: Tx): Fragment {
  return tx`(
    select v.id, v.product_id, v.code, v.weight_grams, v.removed_at is not null as removed, p.deleted_at is not null as product_deleted, p.type = 'service' as service
    from variants v join products p on p.id = v.product_id)`;
}
