-- migrate:up
-- Admin web app sessions: a cookie carries the token, only its hash is stored; the CSRF token is
-- sent back by the app in a header on every change.
CREATE TABLE admin_sessions (
  token_hash text PRIMARY KEY,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
ALTER TABLE admin_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE admin_sessions FORCE ROW LEVEL SECURITY;
-- Visible in its shop, or to whoever presents the session token (its hash), like API keys.
CREATE POLICY shop_isolation ON admin_sessions
  USING (shop_id = current_shop_id() OR token_hash = current_setting('app.session_token_hash', true))
  WITH CHECK (shop_id = current_shop_id());

-- One row per (flow, event) delivery and one per attempt, for the admin delivery history.
CREATE TABLE deliveries (
  delivery_id text PRIMARY KEY,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  flow_id uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  workflow_id text NOT NULL,
  test_run boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('delivering', 'retrying', 'delivered', 'failed', 'gone')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_flow_idx ON deliveries (flow_id, created_at DESC);

CREATE TABLE delivery_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  delivery_id text NOT NULL REFERENCES deliveries (delivery_id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  response_excerpt text NOT NULL DEFAULT '',
  error text,
  verdict text NOT NULL CHECK (verdict IN ('delivered', 'gone', 'retry'))
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempted_at);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY['deliveries', 'delivery_attempts']::regclass[]) AS shop_table;

-- migrate:down
DROP TABLE delivery_attempts, deliveries, admin_sessions;
