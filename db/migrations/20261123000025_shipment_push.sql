-- migrate:up
-- The address the carrier picks up from, as the carrier account registers it (GHN's shop address,
-- GHTK's pick address): names, as carriers take them. Connections made before have none and are
-- refused for pushing (503 carrier-unavailable, connect again) like those without credentials.
ALTER TABLE carrier_connections ADD COLUMN pick_up jsonb CHECK (jsonb_typeof(pick_up) = 'object');

-- Each cancel request of a shipment is its own workflow, `shipment-cancel:<shipmentId>:<n>`. A
-- partially delivered shipment is tracked until its return leg's goods are back at the shop.
ALTER TABLE shipments
  ADD COLUMN cancel_requests integer NOT NULL DEFAULT 0,
  ADD COLUMN return_leg_ended boolean NOT NULL DEFAULT false;

-- A carrier callback knows no shop: its URL carries our secret, whose hash names the connection
-- (app.callback_secret_hash, hex), as app.platform_page_id admits a chat link.
DROP POLICY shop_isolation ON carrier_connections;
CREATE POLICY shop_isolation ON carrier_connections
  USING (shop_id = current_shop_id()
    OR callback_secret_hash = decode(nullif(current_setting('app.callback_secret_hash', true), ''), 'hex'))
  WITH CHECK (shop_id = current_shop_id());

-- migrate:down
DROP POLICY shop_isolation ON carrier_connections;
CREATE POLICY shop_isolation ON carrier_connections USING (shop_id = current_shop_id()) WITH CHECK (shop_id = current_shop_id());
ALTER TABLE shipments DROP COLUMN return_leg_ended, DROP COLUMN cancel_requests;
ALTER TABLE carrier_connections DROP COLUMN pick_up;
