-- migrate:up
-- Products of up to 2,048 variants (domain/catalog/product-rules.ts, MAX_VARIANTS).
-- A product's live variants summed up on its row, kept by every product write (domain/catalog/products.ts):
-- a page of GET /products reads no variant, however many each product has.
ALTER TABLE products
  ADD COLUMN variant_count integer NOT NULL DEFAULT 0,
  ADD COLUMN price_from numeric(18,3),
  ADD COLUMN price_to numeric(18,3);
UPDATE products p SET variant_count = live.variant_count, price_from = live.price_from, price_to = live.price_to
FROM (
  SELECT product_id, count(*)::int AS variant_count, min(price) AS price_from, max(price) AS price_to
  FROM variants WHERE removed_at IS NULL GROUP BY product_id
) live
WHERE live.product_id = p.id;
-- A write rewrites the match keys of the variants it changed, found by product, not by a scan of every shop's keys.
CREATE INDEX match_keys_product_idx ON match_keys (product_id);

-- migrate:down
DROP INDEX match_keys_product_idx;
ALTER TABLE products DROP COLUMN variant_count, DROP COLUMN price_from, DROP COLUMN price_to;
