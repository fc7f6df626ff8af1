-- migrate:up
-- What a carrier connection needs to push shipments: the carrier's base URL, the warehouse the
-- carrier picks up from, and the credentials, sealed (AES-256-GCM under SECRETS_KEY with the
-- connection id as associated data, domain/kernel/sealed-secrets.ts) together with the callback
-- secret. Only a hash of that secret is kept in the clear: the callback endpoint finds the
-- connection by it. Rows written before (seed, older set-ups) have none of these: they stay listed
-- but cannot push until connected again.
ALTER TABLE carrier_connections
  ADD COLUMN base_url text CHECK (base_url ~ '^https?://'),
  ADD COLUMN warehouse_id uuid REFERENCES warehouses (id),
  ADD COLUMN sealed_credentials bytea,
  ADD COLUMN callback_secret_hash bytea CHECK (length(callback_secret_hash) = 32),
  ADD CONSTRAINT carrier_connections_configured_whole CHECK (
    (base_url IS NULL) = (sealed_credentials IS NULL) AND (base_url IS NULL) = (callback_secret_hash IS NULL));
CREATE UNIQUE INDEX carrier_connections_callback_secret_hash ON carrier_connections (callback_secret_hash);

-- Shipments keep what the carrier last said (its raw code), the label of a return leg (carrier B's
-- partial delivery), and the order code as pushed: the list row shows it, and the shipments module
-- cannot read orders (orders use shipments).
ALTER TABLE shipments
  ADD COLUMN order_code text CHECK (length(order_code) BETWEEN 1 AND 100),
  ADD COLUMN carrier_status text,
  ADD COLUMN return_tracking_code text;
-- Callbacks name the shipment by its tracking code (or a return leg's) within one connection.
CREATE INDEX shipments_by_tracking_code ON shipments (connection_id, tracking_code);

-- The itinerary of a shipment (spec: Shipment detail `events`): one row per carrier milestone,
-- status null when the milestone does not change the shipment's state (the return leg's steps).
-- A repeated callback names the same (leg, carrier status, time) and is kept once.
CREATE TABLE shipment_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  shipment_id uuid NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
  leg text NOT NULL DEFAULT 'outbound' CHECK (leg IN ('outbound', 'return')),
  status text CHECK (status IN (
    'pending', 'delivering', 'delivered', 'delivery_failed', 'returning', 'returned',
    'partially_returned', 'cancelled', 'lost', 'damaged', 'exception', 'scrapped')),
  carrier_status text,
  occurred_at timestamptz NOT NULL,
  location text,
  description text,
  reason text,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (shipment_id, leg, carrier_status, occurred_at)
);
CREATE INDEX shipment_events_itinerary ON shipment_events (shipment_id, occurred_at, recorded_at);

SELECT enable_shop_isolation('shipment_events');

-- migrate:down
DROP TABLE shipment_events;
DROP INDEX shipments_by_tracking_code;
ALTER TABLE shipments DROP COLUMN return_tracking_code, DROP COLUMN carrier_status, DROP COLUMN order_code;
DROP INDEX carrier_connections_callback_secret_hash;
ALTER TABLE carrier_connections
  DROP CONSTRAINT carrier_connections_configured_whole,
  DROP COLUMN callback_secret_hash,
  DROP COLUMN sealed_credentials,
  DROP COLUMN warehouse_id,
  DROP COLUMN base_url;
