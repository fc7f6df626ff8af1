import { escapeLike, syncedPage, type CursorBinding, type ListQuery, type Page, type Tx } from '../kernel/index.js';
import type { ProductRow } from './product-shapes.js';

export interface ProductFilters {
  search?: string;
  categoryId?: string;
}

/** The variant count and price range are the product row's, kept by every product write: a page reads no variant. */
const ROW_COLUMNS = (tx: Tx) => tx`
  p.id, p.code, p.name, p.type, p.is_active,
  coalesce((select array_agg(c.name order by pc.position, c.name) from product_categories pc join categories c on c.id = pc.category_id where pc.product_id = p.id), '{}') as category_names,
  p.variant_count,
  (select i.url from product_images i where i.product_id = p.id order by cardinality(i.variant_ids) = 0 desc, i.position limit 1) as image_url,
  api_decimal(p.price_from) as price_from, api_decimal(p.price_to) as price_to,
  api_time(p.updated_at) as updated_at, api_time(p.deleted_at) as deleted_at`;

/** `GET /products`: (updatedAt, id) order; `search` in name or code; `categoryId`. */
export async function listProducts(
  tx: Tx,
  query: ListQuery & ProductFilters,
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<ProductRow>> {
  const pattern = query.search ? `%${escapeLike(query.search.trim().toLowerCase())}%` : undefined;
  return syncedPage<ProductRow>(
    tx,
    {
      table: 'p',
      column: 'updated_at',
      softDelete: true,
      source: tx`products p`,
      columns: ROW_COLUMNS(tx),
      filters: () => [
        ...(pattern === undefined ? [] : [tx`(lower(p.name) like ${pattern} or lower(p.code) like ${pattern})`]),
        ...(query.categoryId
          ? [tx`exists (select 1 from product_categories pc where pc.product_id = p.id and pc.category_id = ${query.categoryId})`]
          : []),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}
