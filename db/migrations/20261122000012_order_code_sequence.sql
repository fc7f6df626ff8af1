-- migrate:up
-- Generated order codes come from one sequence: a per-shop counter row made every order creation of
-- a shop wait for the previous one to commit.
CREATE SEQUENCE order_code_seq;
GRANT USAGE, SELECT ON SEQUENCE order_code_seq TO shopflow_app;
DROP TABLE order_code_counters;

-- migrate:down
CREATE TABLE order_code_counters (
  shop_id uuid PRIMARY KEY REFERENCES shops (id) ON DELETE CASCADE,
  last_number bigint NOT NULL
);
DROP SEQUENCE order_code_seq;
