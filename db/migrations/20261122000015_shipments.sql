-- migrate:up
-- Shipments of orders pushed to a carrier through one of the shop's carrier connections. States as
-- in the spec; DESIGN.md names the final ones.
CREATE TABLE shipments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES orders (id),
  connection_id uuid NOT NULL REFERENCES carrier_connections (id),
  carrier text NOT NULL CHECK (carrier IN ('carrier_a', 'carrier_b')),
  tracking_code text,
  status text NOT NULL CHECK (status IN (
    'pending', 'delivering', 'delivered', 'delivery_failed', 'returning', 'returned',
    'partially_returned', 'cancelled', 'lost', 'damaged', 'exception', 'scrapped')),
  -- Whether the shipment has ended (DESIGN.md: delivered, returned, cancelled, lost, damaged,
  -- scrapped, and partially_returned for the outbound leg); while it has not, the order's goods stay fixed.
  ended boolean GENERATED ALWAYS AS (status IN (
    'delivered', 'returned', 'partially_returned', 'cancelled', 'lost', 'damaged', 'scrapped')) STORED,
  cod_amount numeric(18, 3) CHECK (cod_amount >= 0),
  fee_total numeric(18, 3) CHECK (fee_total >= 0),
  weight_gram integer CHECK (weight_gram BETWEEN 1 AND 50000),
  recipient_name text CHECK (length(recipient_name) <= 255),
  recipient_phone text,
  recipient_address text,
  note text CHECK (length(note) <= 5000),
  expected_delivery_at timestamptz,
  picked_up_at timestamptz,
  fail_reason text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX shipments_live_by_order ON shipments (order_id) WHERE NOT ended;
CREATE INDEX shipments_sync ON shipments (shop_id, updated_at, id);

SELECT enable_shop_isolation('shipments');

-- migrate:down
DROP TABLE shipments;
