-- migrate:up
-- Codes compared case-insensitively through a stored key: under row-level security a condition
-- like lower(code) = $1 cannot use an index (lower() is not leakproof), so every lookup scanned the
-- shop's rows. code_key = $1 is a plain equality the index answers.
ALTER TABLE orders ADD COLUMN code_key text GENERATED ALWAYS AS (lower(code)) STORED;
CREATE UNIQUE INDEX orders_code_key_idx ON orders (shop_id, code_key);
ALTER TABLE products ADD COLUMN code_key text GENERATED ALWAYS AS (lower(code)) STORED;
CREATE UNIQUE INDEX products_code_key_idx ON products (shop_id, code_key);

-- migrate:down
ALTER TABLE products DROP COLUMN code_key;
ALTER TABLE orders DROP COLUMN code_key;
