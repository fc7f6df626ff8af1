-- migrate:up
-- Indexes no query can use, maintained on every write:
-- * lower(code) uniques, superseded by the code_key ones (0014); lookups go through code_key;
-- * trigram indexes on names: under row-level security `lower(name) like …` is not leakproof,
--   so the planner never uses them for the application role (searches scan the shop's rows);
-- * events by resource: nothing reads events by resource.
DROP INDEX orders_code_key;
DROP INDEX products_code_key;
DROP INDEX customers_name_idx;
DROP INDEX products_name_idx;
DROP INDEX events_resource_idx;

-- migrate:down
CREATE INDEX events_resource_idx ON events (shop_id, resource_id, created_at);
CREATE INDEX products_name_idx ON products USING gin (lower(name) gin_trgm_ops);
CREATE INDEX customers_name_idx ON customers USING gin (lower(name) gin_trgm_ops);
CREATE UNIQUE INDEX products_code_key ON products (shop_id, lower(code));
CREATE UNIQUE INDEX orders_code_key ON orders (shop_id, lower(code));
