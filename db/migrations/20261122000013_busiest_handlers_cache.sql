-- migrate:up
-- The three members with the most orders of the last 30 days, recounted at most once a minute per
-- shop: counting a month of orders on every creation made large shops' creations slow.
CREATE TABLE busiest_handlers (
  shop_id uuid PRIMARY KEY REFERENCES shops (id) ON DELETE CASCADE,
  user_ids uuid[] NOT NULL,
  counted_at timestamptz NOT NULL
);
SELECT enable_shop_isolation('busiest_handlers');

-- migrate:down
DROP TABLE busiest_handlers;
