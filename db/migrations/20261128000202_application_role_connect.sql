-- migrate:up
-- The application role may connect to this database by a grant of its own, not only as one of
-- PUBLIC: docker-compose.yml's PostgreSQL revokes CONNECT from PUBLIC on Shopflow's database
-- (deploy/postgres-init/10-temporal-role.sh), so that Temporal's role cannot connect to it.
DO $$
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO shopflow_app', current_database());
END
$$;

-- migrate:down
DO $$
BEGIN
  EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM shopflow_app', current_database());
END
$$;
