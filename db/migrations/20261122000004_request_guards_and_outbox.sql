-- migrate:up
-- Rate-limit counters: one row per (scope, one-minute window), shared by every API instance.
-- Unlogged: losing the current minute's counts in a crash is harmless, and writes are cheaper.
CREATE UNLOGGED TABLE rate_limit_counters (
  scope text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (scope, window_start)
);

CREATE FUNCTION hit_rate_limit(p_scope text)
RETURNS TABLE (hits integer, window_start timestamptz)
LANGUAGE sql VOLATILE
AS $$
  INSERT INTO rate_limit_counters AS c (scope, window_start, hits)
  VALUES (p_scope, date_trunc('minute', clock_timestamp()), 1)
  ON CONFLICT (scope, window_start) DO UPDATE SET hits = c.hits + 1
  RETURNING c.hits, c.window_start
$$;

/*
 * Authentication and rate counting in one round trip: the key's shop and application (see
 * authenticate_api_key) and the hit on the request's counter. p_counter is 'general' or
 * 'messages' (counted per key) or 'shipments' (counted per shop).
 */
CREATE FUNCTION authenticate_request(p_key_hash text, p_counter text)
RETURNS TABLE (
  key_id uuid,
  application_id uuid,
  application_name text,
  permissions text[],
  page_ids uuid[],
  shop_id uuid,
  shop_slug text,
  shop_name text,
  plan text,
  suspended boolean,
  automation_enabled boolean,
  recompute_ceiling_seconds integer,
  hits integer,
  window_start timestamptz
)
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY
    SELECT k.*, h.hits, h.window_start
    FROM authenticate_api_key(p_key_hash) k
    CROSS JOIN LATERAL hit_rate_limit(
      p_counter || ':' || CASE WHEN p_counter = 'shipments' THEN k.shop_id ELSE k.key_id END
    ) h;
END
$$;

-- Idempotency-Key records: the first request's outcome, replayed for 24 h.
CREATE TABLE idempotency_keys (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  application_id uuid NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  status_code integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop_id, application_id, idempotency_key)
);

-- The outbox: one row per event, written in the transaction of the change it describes.
CREATE TABLE events (
  id text PRIMARY KEY CHECK (id ~ '^evt_[0-9A-HJKMNP-TV-Z]{26}$'),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  type text NOT NULL,
  resource_id uuid NOT NULL,
  changes jsonb,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  relayed_at timestamptz
);
CREATE INDEX events_pending_idx ON events (created_at) WHERE relayed_at IS NULL;
CREATE INDEX events_resource_idx ON events (shop_id, resource_id, created_at);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY['idempotency_keys', 'events']::regclass[]) AS shop_table;

-- migrate:down
DROP TABLE events, idempotency_keys, rate_limit_counters;
DROP FUNCTION authenticate_request(text, text);
DROP FUNCTION hit_rate_limit(text);
