-- migrate:up
-- Orders with their lines, payments, tags, notes and customer returns; the per-shop state of
-- order codes and of round-robin handler assignment. Money and quantities are numeric(18, 3).

-- A shop setting: when on, no order edit may set a price off the list or a discount.
ALTER TABLE shops ADD COLUMN lock_prices boolean NOT NULL DEFAULT false;

CREATE TABLE orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  code text NOT NULL CHECK (length(code) BETWEEN 1 AND 100),
  status text NOT NULL DEFAULT 'new' CHECK (status IN (
    'new', 'waiting_stock', 'confirmed', 'packing', 'ready_to_ship', 'shipped', 'delivered', 'paid',
    'returning', 'partially_returned', 'returned', 'cancelled', 'deleted')),
  warehouse_id uuid NOT NULL REFERENCES warehouses (id),
  customer_id uuid REFERENCES customers (id),
  sales_channel_id uuid REFERENCES sales_channels (id),
  received_at_shop boolean NOT NULL DEFAULT false,
  handler_user_id uuid REFERENCES users (id),
  bill_full_name text CHECK (length(bill_full_name) <= 255),
  bill_phone text,
  bill_email text CHECK (length(bill_email) <= 255),
  -- The shipping address (null when has_shipping_address is false), fields as in customer_addresses.
  has_shipping_address boolean NOT NULL DEFAULT false,
  shipping_recipient_name text,
  shipping_recipient_phone text,
  shipping_address_line text,
  shipping_geo_system text CHECK (shipping_geo_system IN ('old', 'new')),
  shipping_province_unit_id uuid,
  shipping_district_unit_id uuid,
  shipping_ward_unit_id uuid,
  shipping_province_name text,
  shipping_district_name text,
  shipping_ward_name text,
  total_price numeric(18, 3) NOT NULL DEFAULT 0,
  discount numeric(18, 3) NOT NULL DEFAULT 0 CHECK (discount >= 0),
  shipping_fee numeric(18, 3) NOT NULL DEFAULT 0 CHECK (shipping_fee >= 0),
  free_shipping boolean NOT NULL DEFAULT false,
  surcharge numeric(18, 3) NOT NULL DEFAULT 0 CHECK (surcharge >= 0),
  tax numeric(18, 3) NOT NULL DEFAULT 0 CHECK (tax >= 0),
  total_amount numeric(18, 3) NOT NULL DEFAULT 0,
  returned_amount numeric(18, 3) NOT NULL DEFAULT 0 CHECK (returned_amount >= 0),
  paid_amount numeric(18, 3) NOT NULL DEFAULT 0,
  credit_applied numeric(18, 3) NOT NULL DEFAULT 0 CHECK (credit_applied >= 0),
  -- True when every customer return of the order is an exchange (kept by the returns code).
  exchange_return boolean NOT NULL DEFAULT false,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  note text CHECK (length(note) <= 5000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX orders_code_key ON orders (shop_id, lower(code));
CREATE INDEX orders_sync_idx ON orders (shop_id, updated_at, id);
CREATE INDEX orders_customer_idx ON orders (shop_id, customer_id);
CREATE INDEX orders_handler_idx ON orders (shop_id, handler_user_id, created_at);

CREATE TABLE order_lines (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  position integer NOT NULL,
  variant_id uuid NOT NULL REFERENCES variants (id),
  product_id uuid REFERENCES products (id),
  -- What the variant was called when sold.
  variant_code text,
  variant_name text,
  product_name text,
  quantity numeric(18, 3) NOT NULL CHECK (quantity > 0),
  unit_price numeric(18, 3) NOT NULL CHECK (unit_price >= 0),
  discount numeric(18, 3) NOT NULL DEFAULT 0 CHECK (discount >= 0),
  line_total numeric(18, 3) NOT NULL CHECK (line_total >= 0),
  returned_quantity numeric(18, 3) NOT NULL DEFAULT 0 CHECK (returned_quantity >= 0 AND returned_quantity <= quantity)
);
CREATE INDEX order_lines_order_idx ON order_lines (order_id, position);

CREATE TABLE order_payments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  position integer NOT NULL,
  method_id uuid NOT NULL REFERENCES payment_methods (id),
  amount numeric(18, 3) NOT NULL CHECK (amount > 0)
);
CREATE INDEX order_payments_order_idx ON order_payments (order_id, position);

CREATE TABLE order_tags (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (order_id, tag_id)
);

CREATE TABLE order_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  message text NOT NULL CHECK (length(message) BETWEEN 1 AND 5000),
  created_by_name text,
  created_by_is_integration boolean NOT NULL DEFAULT false,
  created_by_user_id uuid REFERENCES users (id),
  application_id uuid REFERENCES applications (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX order_notes_order_idx ON order_notes (order_id, created_at DESC);

-- Customer returns of an order: goods back to stock, refund or exchange, optional credit to another order.
CREATE TABLE order_returns (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  exchange boolean NOT NULL,
  amount numeric(18, 3) NOT NULL CHECK (amount >= 0),
  credit_order_id uuid REFERENCES orders (id),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX order_returns_order_idx ON order_returns (order_id);

-- The last number used for generated order codes.
CREATE TABLE order_code_counters (
  shop_id uuid PRIMARY KEY REFERENCES shops (id) ON DELETE CASCADE,
  last_number bigint NOT NULL
);

-- Round-robin state per candidate pool (a role, the own-orders roles, the top sellers); the row is
-- locked by each assignment, so concurrent creations take turns.
CREATE TABLE order_assignment_cursors (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  scope text NOT NULL,
  last_user_id uuid,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (shop_id, scope)
);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY[
  'orders', 'order_lines', 'order_payments', 'order_tags', 'order_notes', 'order_returns',
  'order_code_counters', 'order_assignment_cursors'
]::regclass[]) AS shop_table;

-- migrate:down
DROP TABLE order_assignment_cursors, order_code_counters, order_returns, order_notes, order_tags,
  order_payments, order_lines, orders;
ALTER TABLE shops DROP COLUMN lock_prices;
