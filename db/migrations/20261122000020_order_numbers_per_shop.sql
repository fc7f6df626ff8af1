-- migrate:up
-- Generated order codes count per shop again: with one platform-wide sequence (20261122000012) a
-- shop could read the platform's order volume off the gaps between its own codes. Each shop gets a
-- sequence of its own, made with its first generated code. nextval never waits for another
-- transaction, unlike the per-shop counter row of 20261122000011 that every creation of a shop held
-- until it committed; a number taken by a creation that rolls back is not reused (a gap).

-- The application role has no USAGE here: it reaches a sequence only through next_order_number(),
-- which picks the one of the transaction's shop.
CREATE SCHEMA order_numbers;
REVOKE ALL ON SCHEMA order_numbers FROM PUBLIC;

CREATE FUNCTION next_order_number() RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
  shop uuid := current_shop_id();
  shop_sequence text;
BEGIN
  IF shop IS NULL THEN
    RAISE EXCEPTION 'next_order_number() needs app.shop_id';
  END IF;
  shop_sequence := format('order_numbers.%I', 'shop_' || replace(shop::text, '-', ''));
  IF to_regclass(shop_sequence) IS NULL THEN
    BEGIN
      -- After the shop's highest generated code so far (those of the platform-wide sequence).
      EXECUTE format('CREATE SEQUENCE %s START %s', shop_sequence,
        (SELECT coalesce(max(substring(code FROM '^DH([0-9]{1,18})$')::bigint), 0) + 1 FROM orders WHERE shop_id = shop));
    EXCEPTION WHEN unique_violation OR duplicate_table THEN
      NULL; -- a concurrent first creation of the shop made it and committed
    END;
  END IF;
  RETURN nextval(shop_sequence::regclass);
END
$$;
REVOKE ALL ON FUNCTION next_order_number() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION next_order_number() TO shopflow_app;

DROP SEQUENCE order_code_seq;

-- migrate:down
CREATE SEQUENCE order_code_seq;
GRANT USAGE, SELECT ON SEQUENCE order_code_seq TO shopflow_app;
DROP FUNCTION next_order_number();
DROP SCHEMA order_numbers CASCADE;
