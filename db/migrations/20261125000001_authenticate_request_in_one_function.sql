-- migrate:up
-- The first statement of every API request, cheaper for PostgreSQL (issue 15, API baselines):
-- authenticate_request finds the key itself instead of reading authenticate_api_key's result set,
-- and a hit updates its window's row first, inserting only on the window's first hit (the
-- speculative insertion of INSERT … ON CONFLICT cost more than the update it ended in). Measured at
-- 40 concurrent calls: 184–225 µs of PostgreSQL CPU per call before, 141–145 µs after.

CREATE OR REPLACE FUNCTION hit_rate_limit(p_scope text)
RETURNS TABLE (hits integer, window_start timestamptz)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  current_window timestamptz := date_trunc('minute', clock_timestamp());
BEGIN
  RETURN QUERY
    UPDATE rate_limit_counters c SET hits = c.hits + 1
    WHERE c.scope = p_scope AND c.window_start = current_window
    RETURNING c.hits, c.window_start;
  IF NOT FOUND THEN
    -- Two first hits at once: the second finds the first's row through the conflict. (The constraint
    -- by name: the column names would be ambiguous with the function's output columns.)
    RETURN QUERY
      INSERT INTO rate_limit_counters AS c (scope, window_start, hits) VALUES (p_scope, current_window, 1)
      ON CONFLICT ON CONSTRAINT rate_limit_counters_pkey DO UPDATE SET hits = c.hits + 1
      RETURNING c.hits, c.window_start;
  END IF;
END
$$;

/*
 * Authentication and rate counting in one round trip: the live key by its hash (row-level security
 * lets the hash's own row through, app.api_key_hash, for this statement only), its application and
 * shop (app.shop_id set to the key's), the once-a-minute last_used_at, and the hit on the request's
 * counter: 'general' or 'messages' per key, 'shipments' per shop.
 */
CREATE OR REPLACE FUNCTION authenticate_request(p_key_hash text, p_counter text)
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
DECLARE
  found_key api_keys%ROWTYPE;
  hit record;
BEGIN
  PERFORM set_config('app.api_key_hash', p_key_hash, true);
  SELECT * INTO found_key FROM api_keys k
  WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());
  PERFORM set_config('app.api_key_hash', '', true);
  IF found_key.id IS NULL THEN
    RETURN;
  END IF;
  PERFORM set_config('app.shop_id', found_key.shop_id::text, true);
  IF found_key.last_used_at IS NULL OR found_key.last_used_at < now() - interval '1 minute' THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = found_key.id;
  END IF;
  SELECT * INTO hit FROM hit_rate_limit(
    p_counter || ':' || CASE WHEN p_counter = 'shipments' THEN found_key.shop_id ELSE found_key.id END
  );
  RETURN QUERY
    SELECT found_key.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds, hit.hits, hit.window_start
    FROM applications a JOIN shops s ON s.id = a.shop_id
    WHERE a.id = found_key.application_id;
END
$$;

-- migrate:down
CREATE OR REPLACE FUNCTION hit_rate_limit(p_scope text)
RETURNS TABLE (hits integer, window_start timestamptz)
LANGUAGE sql VOLATILE
AS $$
  INSERT INTO rate_limit_counters AS c (scope, window_start, hits)
  VALUES (p_scope, date_trunc('minute', clock_timestamp()), 1)
  ON CONFLICT (scope, window_start) DO UPDATE SET hits = c.hits + 1
  RETURNING c.hits, c.window_start
$$;

CREATE OR REPLACE FUNCTION authenticate_request(p_key_hash text, p_counter text)
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
