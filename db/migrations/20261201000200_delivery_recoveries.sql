-- migrate:up
-- The recovery batches a shop started (domain/flows/delivery-recovery.ts): at most one running per flow,
-- a few per shop, their paces within the shop's share. Whether one still runs is asked of Temporal;
-- `ended_at` is set once it is found ended.
CREATE TABLE delivery_recoveries (
  workflow_id text PRIMARY KEY,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  flow_id uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  since timestamptz NOT NULL,
  per_minute integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz
);
CREATE INDEX delivery_recoveries_open_idx ON delivery_recoveries (shop_id) WHERE ended_at IS NULL;

SELECT enable_shop_isolation('delivery_recoveries'::regclass);

-- migrate:down
DROP TABLE delivery_recoveries;
