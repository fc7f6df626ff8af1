-- migrate:up
-- An unknown key returned no row only by accident: `IF NOT FOUND` came after a PERFORM, which sets
-- FOUND itself, so the function went on to set an empty shop and run the join. It now stops at once.
CREATE OR REPLACE FUNCTION authenticate_api_key(p_key_hash text)
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
  recompute_ceiling_seconds integer
)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  found_key api_keys%ROWTYPE;
BEGIN
  PERFORM set_config('app.api_key_hash', p_key_hash, true);
  SELECT * INTO found_key FROM api_keys k
  WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());
  PERFORM set_config('app.api_key_hash', '', true);
  IF found_key.id IS NULL THEN
    RETURN;
  END IF;
  PERFORM set_config('app.shop_id', found_key.shop_id::text, true);
  RETURN QUERY
    SELECT found_key.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds
    FROM applications a JOIN shops s ON s.id = a.shop_id
    WHERE a.id = found_key.application_id;
END
$$;

-- migrate:down
-- The earlier body differs only in the order of the not-found test; keeping this one is harmless.
SELECT 1;
