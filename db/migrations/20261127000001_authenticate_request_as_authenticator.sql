-- migrate:up
-- authenticate_request as one statement, run by a role of its own (issue 15, API baselines).
--
-- Under the application role the lookup needed row-level security opened step by step: the key's hash
-- set, the key read, the shop set, then its application and shop read, each a statement of its own
-- in PL/pgSQL. shopflow_authenticator owns the function and nothing else. It cannot log in, is
-- neither superuser nor BYPASSRLS, and reads keys, applications and shops only through policies that
-- name it. It may update one column of api_keys (last_used_at) and the rate counters. The
-- application role only calls the function with a hash, which returns that key's row or nothing:
-- what the hash policy on api_keys already allowed. That role still sees no shop row without a shop.
-- Measured with pgbench (2 clients, 40 keys, prepared, three alternating rounds): PostgreSQL CPU
-- per call 214–218 µs before, 150–170 µs after.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'shopflow_authenticator') THEN
    CREATE ROLE shopflow_authenticator NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
END
$$;
ALTER ROLE shopflow_authenticator NOLOGIN NOSUPERUSER NOBYPASSRLS;

GRANT USAGE ON SCHEMA public TO shopflow_authenticator;
GRANT SELECT ON shops, applications, api_keys TO shopflow_authenticator;
GRANT UPDATE (last_used_at) ON api_keys TO shopflow_authenticator;
GRANT SELECT, INSERT, UPDATE ON rate_limit_counters TO shopflow_authenticator;
CREATE POLICY authenticator_lookup ON api_keys FOR SELECT TO shopflow_authenticator USING (true);
CREATE POLICY authenticator_last_used ON api_keys FOR UPDATE TO shopflow_authenticator USING (true) WITH CHECK (true);
CREATE POLICY authenticator_lookup ON applications FOR SELECT TO shopflow_authenticator USING (true);
CREATE POLICY authenticator_lookup ON shops FOR SELECT TO shopflow_authenticator USING (true);

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
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
-- A definer's function resolves names in its own path, never the caller's (pg_temp last).
SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
  -- PL/pgSQL rather than SQL: its statement's plan is cached for the connection.
  RETURN QUERY
    WITH found_key AS (
      SELECT k.id, k.shop_id, k.application_id, k.last_used_at FROM api_keys k
      WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
    ), touched AS (
      UPDATE api_keys k SET last_used_at = now() FROM found_key f
      WHERE k.id = f.id AND (f.last_used_at IS NULL OR f.last_used_at < now() - interval '1 minute')
    )
    SELECT f.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds, hit.hits, hit.window_start
    FROM found_key f
    JOIN applications a ON a.id = f.application_id
    JOIN shops s ON s.id = a.shop_id
    CROSS JOIN LATERAL hit_rate_limit(p_counter || ':' || CASE WHEN p_counter = 'shipments' THEN f.shop_id ELSE f.id END) hit;
END
$$;
ALTER FUNCTION authenticate_request(text, text) OWNER TO shopflow_authenticator;
REVOKE EXECUTE ON FUNCTION authenticate_request(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION authenticate_request(text, text) TO shopflow_app;

-- migrate:down
ALTER FUNCTION authenticate_request(text, text) OWNER TO CURRENT_USER;
GRANT EXECUTE ON FUNCTION authenticate_request(text, text) TO PUBLIC;
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
BEGIN
  PERFORM set_config('app.api_key_hash', p_key_hash, true);
  SELECT * INTO found_key FROM api_keys k
  WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());
  -- The hash's row is readable for the lookup only; then the key's shop is (no shop for an unknown key).
  PERFORM set_config('app.api_key_hash', '', true), set_config('app.shop_id', coalesce(found_key.shop_id::text, ''), true);
  IF found_key.id IS NULL THEN
    RETURN;
  END IF;
  IF found_key.last_used_at IS NULL OR found_key.last_used_at < now() - interval '1 minute' THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = found_key.id;
  END IF;
  RETURN QUERY
    SELECT found_key.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds, hit.hits, hit.window_start
    FROM applications a
    JOIN shops s ON s.id = a.shop_id
    CROSS JOIN LATERAL hit_rate_limit(
      p_counter || ':' || CASE WHEN p_counter = 'shipments' THEN found_key.shop_id ELSE found_key.id END
    ) hit
    WHERE a.id = found_key.application_id;
END
$$;

DROP POLICY authenticator_lookup ON api_keys;
DROP POLICY authenticator_last_used ON api_keys;
DROP POLICY authenticator_lookup ON applications;
DROP POLICY authenticator_lookup ON shops;
REVOKE ALL ON shops, applications, api_keys, rate_limit_counters FROM shopflow_authenticator;
REVOKE ALL ON SCHEMA public FROM shopflow_authenticator;
