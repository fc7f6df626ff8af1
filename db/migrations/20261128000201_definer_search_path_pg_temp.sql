-- migrate:up
-- A SECURITY DEFINER function runs with its owner's rights, so it resolves names only in its own
-- search_path, with pg_temp last: otherwise the caller's temporary schema, searched first by default,
-- could put a table or function of theirs in place of one the function names (`orders`, say).
-- authenticate_request already does (20261127000001); next_order_number did not.
ALTER FUNCTION next_order_number() SET search_path = pg_catalog, public, pg_temp;

-- migrate:down
ALTER FUNCTION next_order_number() SET search_path = pg_catalog, public;
