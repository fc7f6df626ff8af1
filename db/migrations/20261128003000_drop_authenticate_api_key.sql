-- migrate:up
-- authenticate_api_key, the key lookup before authenticate_request (20261127000001) did it in one
-- statement, had no caller left but the seed and a bench baseline, which now call
-- authenticate_request: one function finds a key, so the live schema shows one.
DROP FUNCTION authenticate_api_key(text);

-- migrate:down
-- As 20261123000026_api_key_last_used.sql left it.
CREATE FUNCTION authenticate_api_key(p_key_hash text)
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
  IF found_key.last_used_at IS NULL OR found_key.last_used_at < now() - interval '1 minute' THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = found_key.id;
  END IF;
  RETURN QUERY
    SELECT found_key.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds
    FROM applications a JOIN shops s ON s.id = a.shop_id
    WHERE a.id = found_key.application_id;
END
$$;
