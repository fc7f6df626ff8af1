-- migrate:up
-- A shop may narrow DESIGN.md's default order status matrix: each row is a move the shop removed.
CREATE TABLE removed_order_transitions (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  from_status text NOT NULL,
  to_status text NOT NULL,
  removed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop_id, from_status, to_status)
);
SELECT enable_shop_isolation('removed_order_transitions');

-- migrate:down
DROP TABLE removed_order_transitions;
