-- migrate:up
-- Operators' CLI names a flow by id (app.flow_id) to find its shop, as it does applications and keys.
DROP POLICY shop_isolation ON flows;
CREATE POLICY shop_isolation ON flows
  USING (shop_id = current_shop_id() OR id::text = current_setting('app.flow_id', true))
  WITH CHECK (shop_id = current_shop_id());

-- migrate:down
DROP POLICY shop_isolation ON flows;
CREATE POLICY shop_isolation ON flows USING (shop_id = current_shop_id()) WITH CHECK (shop_id = current_shop_id());
